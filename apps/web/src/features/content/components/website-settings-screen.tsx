import {
  Autocomplete,
  Box,
  Button,
  Grid,
  Group,
  Image,
  Paper,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { notifications } from '@mantine/notifications';
import { IconDeviceFloppy, IconWorld } from '@tabler/icons-react';
import { isHexColor, textColorOn } from '@rally/shared';
import { clientSettingsUpdateBody } from '@rally/shared/schemas/content';
import type { ClientSettings, ClientSettingsUpdateBody } from '@rally/shared/schemas/content';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useClientSettings } from '../api/get-client-settings.ts';
import { useUpdateClientSettings } from '../api/update-client-settings.ts';
import { BrandSettingsNav } from './brand-settings-nav.tsx';
import { ColorFields, colorValuesOf, colorsBody } from './color-fields.tsx';
import type { ColorValues } from './color-fields.tsx';
import { schemaErrors } from './form-validation.ts';
import { ImageUpload } from './image-upload.tsx';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { Section } from './section.tsx';

export type WebsiteFormValues = {
  website_url: string;
  logo_url: string;
  favicon_url: string;
  colors: ColorValues;
  landing_button_name: string;
  landing_trigger_field: string;
  landing_trigger_type: string;
};

export const websiteFormValues = (s: ClientSettings): WebsiteFormValues => ({
  website_url: s.website_url,
  logo_url: s.logo_url,
  favicon_url: s.favicon_url,
  colors: colorValuesOf(s.colors),
  landing_button_name: s.landing_button_name,
  landing_trigger_field: s.landing_trigger_field,
  landing_trigger_type: s.landing_trigger_type,
});

export const websiteBody = (v: WebsiteFormValues): ClientSettingsUpdateBody => ({
  website_url: v.website_url.trim(),
  logo_url: v.logo_url,
  favicon_url: v.favicon_url,
  colors: colorsBody(v.colors),
  landing_button_name: v.landing_button_name.trim(),
  landing_trigger_field: v.landing_trigger_field.trim(),
  landing_trigger_type: v.landing_trigger_type.trim(),
});

/** /client-settings/website: the brand every landing page and ad starts from. */
export function WebsiteSettingsScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = hasPermission(auth.currentRole.permissions, 'settings.write');
  return (
    <Stack gap="lg">
      <div>
        <Title order={1}>Website</Title>
        <Text c="dimmed">
          Your brand on landing pages and ads: website, logo, favicon, colours and the button prospects press.
        </Text>
      </div>
      <BrandSettingsNav clientId={clientId} current="website" />
      {!canWrite && <PermissionNote permission="settings.write" what="the brand settings" />}
      <SettingsLoader clientId={clientId} canWrite={canWrite} />
    </Stack>
  );
}

function SettingsLoader({ clientId, canWrite }: { clientId: string; canWrite: boolean }) {
  const settings = useClientSettings(clientId);
  if (settings.isPending) return <PanelLoading label="Loading brand settings" />;
  if (settings.isError)
    return (
      <PanelError error={settings.error} what="brand settings" onRetry={() => void settings.refetch()} />
    );
  return <WebsiteForm key={clientId} clientId={clientId} settings={settings.data} canWrite={canWrite} />;
}

function WebsiteForm({
  clientId,
  settings,
  canWrite,
}: {
  clientId: string;
  settings: ClientSettings;
  canWrite: boolean;
}) {
  const update = useUpdateClientSettings(clientId);
  const form = useForm<WebsiteFormValues>({
    mode: 'controlled',
    initialValues: websiteFormValues(settings),
    validate: (v) => schemaErrors(clientSettingsUpdateBody, websiteBody(v)),
    validateInputOnChange: ['colors.background', 'colors.text', 'colors.accent', 'colors.primary'],
    validateInputOnBlur: true,
  });
  const disabled = !canWrite;
  const hasFieldErrors = Object.keys(fieldErrorsOf(update.error)).length > 0;
  return (
    <form
      noValidate
      onSubmit={form.onSubmit((v) =>
        update.mutate(websiteBody(v), {
          onSuccess: (saved) => {
            notifications.show({ color: 'green', message: 'The brand settings have been saved.' });
            form.setValues(websiteFormValues(saved));
            form.resetDirty(websiteFormValues(saved));
          },
          onError: (err) => form.setErrors(fieldErrorsOf(err)),
        }),
      )}
    >
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Stack gap="md">
            <Section title="Website">
              <TextInput
                label="Website URL"
                description="Where your logo links, and the rep's website when none is set"
                placeholder="https://example.com"
                leftSection={<IconWorld size={16} />}
                readOnly={disabled}
                {...form.getInputProps('website_url')}
              />
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
                <ImageUpload
                  clientId={clientId}
                  kind="logo"
                  label="Logo"
                  shape="wide"
                  value={form.values.logo_url}
                  onChange={(url) => form.setFieldValue('logo_url', url)}
                  disabled={disabled}
                  error={form.errors.logo_url as string | undefined}
                />
                <ImageUpload
                  clientId={clientId}
                  kind="favicon"
                  label="Favicon"
                  value={form.values.favicon_url}
                  onChange={(url) => form.setFieldValue('favicon_url', url)}
                  disabled={disabled}
                  error={form.errors.favicon_url as string | undefined}
                />
              </SimpleGrid>
            </Section>
            <Section title="Colours" description="New ads and landing pages start with these colours.">
              <ColorFields inputProps={(k) => form.getInputProps(`colors.${k}`)} disabled={disabled} />
            </Section>
            <Section
              title="Landing page button"
              description="Used on landing pages and ads that do not name their own."
            >
              <TextInput
                label="Button name"
                placeholder="Book a meeting"
                readOnly={disabled}
                {...form.getInputProps('landing_button_name')}
              />
              <SimpleGrid cols={2} spacing="sm">
                <Autocomplete
                  label="Trigger field"
                  description="Where the button links to"
                  placeholder="calendar_url"
                  data={['calendar_url', 'website']}
                  readOnly={disabled}
                  {...form.getInputProps('landing_trigger_field')}
                />
                <Autocomplete
                  label="Trigger type"
                  description="How it shows"
                  placeholder="button"
                  data={['button', 'link']}
                  readOnly={disabled}
                  {...form.getInputProps('landing_trigger_type')}
                />
              </SimpleGrid>
            </Section>
            {!hasFieldErrors && <FormError error={update.error} />}
            {canWrite && (
              <Group justify="flex-end">
                <Button
                  type="submit"
                  leftSection={<IconDeviceFloppy size={16} />}
                  loading={update.isPending}
                  disabled={!form.isDirty()}
                >
                  Save
                </Button>
              </Group>
            )}
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 5 }}>
          <Box pos="sticky" top={16}>
            <BrandPreview values={form.values} />
          </Box>
        </Grid.Col>
      </Grid>
    </form>
  );
}

const safe = (c: string, fallback: string) => (isHexColor(c) ? (c.startsWith('#') ? c : `#${c}`) : fallback);

/** How the brand looks at the top of a landing page (a sketch; the page itself decides details). */
function BrandPreview({ values }: { values: WebsiteFormValues }) {
  const background = safe(values.colors.background, '#ffffff');
  const button = safe(values.colors.primary || values.colors.accent, '#000000');
  const host = values.website_url.replace(/^https?:\/\//i, '').replace(/\/.*$/, '') || 'your-site.com';
  return (
    <Stack gap="xs">
      <Title order={2} size="h4">
        Preview
      </Title>
      <Paper withBorder radius="md" style={{ overflow: 'hidden' }} aria-label="Brand preview">
        <Group gap={8} px="sm" py={6} bg="gray.1" wrap="nowrap">
          {values.favicon_url ? (
            <Image src={values.favicon_url} alt="" w={16} h={16} fit="contain" />
          ) : (
            <Box w={16} h={16} bg="gray.4" style={{ borderRadius: 4 }} />
          )}
          <Text size="xs" c="dimmed" truncate>
            {host}
          </Text>
        </Group>
        <Stack gap="md" p="lg" style={{ background }}>
          <Group justify="space-between" wrap="nowrap">
            {values.logo_url ? (
              <Image src={values.logo_url} alt="Logo" h={32} w="auto" maw={160} fit="contain" />
            ) : (
              <Text fw={700} c={textColorOn(background, 'title')}>
                Your logo
              </Text>
            )}
            <Box
              px="sm"
              py={6}
              style={{ background: button, color: textColorOn(button, 'body'), borderRadius: 999 }}
            >
              <Text size="xs" fw={600} span>
                {values.landing_button_name.trim() || 'Book a meeting'}
              </Text>
            </Box>
          </Group>
          <Text fw={700} size="xl" c={textColorOn(background, 'title')} lh={1.2}>
            Your headline, written for each prospect
          </Text>
          <Text size="sm" c={textColorOn(background, 'body')}>
            Text is drawn black or white by the brightness of what is behind it.
          </Text>
        </Stack>
      </Paper>
    </Stack>
  );
}
