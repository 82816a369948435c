import { useState } from 'react';
import {
  Avatar,
  Box,
  Button,
  Grid,
  Group,
  Image,
  Paper,
  Select,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { IconBrandFacebook, IconDots, IconWorld } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { ClientSettings, ClientSettingsUpdateBody, ContentItem } from '@rally/shared/schemas/content';
import { PanelError, PanelLoading } from '../../../components/panel-states.tsx';
import { cssUrl } from '../../../lib/css-url.ts';
import { useContentItems } from '../api/get-content-items.ts';
import { useClientSettingsForm } from '../hooks/use-client-settings-form.ts';
import { BrandSettingsScreen } from './brand-settings-screen.tsx';
import type { SettingsFormProps } from './brand-settings-screen.tsx';
import { contentLabel } from './content-list-screen.tsx';
import { ImageUpload } from './image-upload.tsx';
import { personaliseText, previewValues } from './personalise.ts';
import { Section } from './section.tsx';
import { SettingsSaveFooter } from './settings-save-footer.tsx';

export type FacebookFormValues = {
  facebook_name: string;
  facebook_page_url: string;
  facebook_cover_photo: string;
  facebook_profile_photo: string;
};

const facebookFormValues = (s: ClientSettings): FacebookFormValues => ({
  facebook_name: s.facebook_name,
  facebook_page_url: s.facebook_page_url,
  facebook_cover_photo: s.facebook_cover_photo,
  facebook_profile_photo: s.facebook_profile_photo,
});

const facebookBody = (v: FacebookFormValues): ClientSettingsUpdateBody => ({
  facebook_name: v.facebook_name.trim(),
  facebook_page_url: v.facebook_page_url.trim(),
  facebook_cover_photo: v.facebook_cover_photo,
  facebook_profile_photo: v.facebook_profile_photo,
});

/** /client-settings/facebook: the page your ads run as, and how a post of yours looks there. */
export function FacebookSettingsScreen() {
  return (
    <BrandSettingsScreen
      title="Facebook"
      description="The Facebook page your ads run as: its name, link, cover and profile photos."
      what="Facebook settings"
      form={FacebookForm}
    />
  );
}

function FacebookForm({ clientId, settings, canWrite }: SettingsFormProps) {
  const { form, update, onSubmit } = useClientSettingsForm({
    clientId,
    settings,
    formValues: facebookFormValues,
    body: facebookBody,
    saved: 'The Facebook settings have been saved.',
  });
  const disabled = !canWrite;
  return (
    <form noValidate onSubmit={onSubmit}>
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Stack gap="md">
            <Section title="Page">
              <TextInput
                label="Page name"
                placeholder="Acme Robotics"
                readOnly={disabled}
                {...form.getInputProps('facebook_name')}
              />
              <TextInput
                label="Page URL"
                placeholder="https://www.facebook.com/yourpage"
                leftSection={<IconBrandFacebook size={16} />}
                readOnly={disabled}
                {...form.getInputProps('facebook_page_url')}
              />
            </Section>
            <Section title="Photos">
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
                <ImageUpload
                  clientId={clientId}
                  kind="photo"
                  label="Profile photo"
                  shape="circle"
                  value={form.values.facebook_profile_photo}
                  onChange={(url) => form.setFieldValue('facebook_profile_photo', url)}
                  disabled={disabled}
                  error={form.errors.facebook_profile_photo as string | undefined}
                />
                <ImageUpload
                  clientId={clientId}
                  kind="cover"
                  label="Cover photo"
                  shape="wide"
                  value={form.values.facebook_cover_photo}
                  onChange={(url) => form.setFieldValue('facebook_cover_photo', url)}
                  disabled={disabled}
                  error={form.errors.facebook_cover_photo as string | undefined}
                />
              </SimpleGrid>
            </Section>
            <SettingsSaveFooter
              error={update.error}
              saving={update.isPending}
              dirty={form.isDirty()}
              canWrite={canWrite}
            />
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <AdPostPreview clientId={clientId} values={form.values} settings={settings} />
        </Grid.Col>
      </Grid>
    </form>
  );
}

/** A published ad in a Facebook-style post, with the page's name and photos as they stand in the form. */
function AdPostPreview({
  clientId,
  values,
  settings,
}: {
  clientId: string;
  values: FacebookFormValues;
  settings: ClientSettings;
}) {
  const content = useContentItems(clientId, 'false');
  const published = (content.data?.items ?? []).filter((c) => c.status === 'published');
  const [chosenId, setChosenId] = useState<string | null>(null);
  const chosen = published.find((c) => c.id === chosenId) ?? published[0] ?? null;
  return (
    <Stack gap="xs">
      <Group justify="space-between" align="flex-end" wrap="nowrap">
        <Title order={2} size="h4">
          Ad preview
        </Title>
        {published.length > 0 && (
          <Select
            aria-label="Ad shown in the preview"
            size="xs"
            w={220}
            data={published.map((c) => ({ value: c.id, label: contentLabel(c) }))}
            value={chosen?.id ?? null}
            onChange={setChosenId}
            allowDeselect={false}
            comboboxProps={{ withinPortal: true }}
          />
        )}
      </Group>
      {content.isPending ? (
        <PanelLoading label="Loading ads" />
      ) : content.isError ? (
        <PanelError error={content.error} what="ads" onRetry={() => void content.refetch()} />
      ) : (
        <FacebookPost values={values} settings={settings} ad={chosen} clientId={clientId} />
      )}
    </Stack>
  );
}

function FacebookPost({
  values,
  settings,
  ad,
  clientId,
}: {
  values: FacebookFormValues;
  settings: ClientSettings;
  ad: ContentItem | null;
  clientId: string;
}) {
  const name = values.facebook_name.trim() || 'Your page';
  const personal = previewValues(ad?.assignee ?? null);
  const text = (t: string) => personaliseText(t, personal);
  const host = (ad?.landing_page_url || settings.website_url || 'example.com')
    .replace(/^https?:\/\//i, '')
    .replace(/\/.*$/, '')
    .toUpperCase();
  const cta = settings.landing_button_name.trim() || 'Learn more';
  return (
    <Paper withBorder radius="md" style={{ overflow: 'hidden' }} aria-label="Facebook post preview">
      <Box
        h={96}
        style={{
          // Not Mantine's bg: its `background` shorthand wiped the picture out.
          backgroundColor: 'var(--mantine-color-gray-2)',
          backgroundImage: values.facebook_cover_photo ? cssUrl(values.facebook_cover_photo) : undefined,
          backgroundSize: 'cover',
          backgroundPosition: 'center',
        }}
        aria-label={values.facebook_cover_photo ? 'Cover photo' : undefined}
      />
      <Stack gap="sm" p="md">
        <Group justify="space-between" wrap="nowrap">
          <Group gap="sm" wrap="nowrap">
            <Avatar src={values.facebook_profile_photo || null} name={name} color="initials" size={40} />
            <div>
              <Text size="sm" fw={700} lh={1.2}>
                {name}
              </Text>
              <Group gap={4}>
                <Text size="xs" c="dimmed">
                  Sponsored ·
                </Text>
                <IconWorld size={12} color="var(--mantine-color-dimmed)" />
              </Group>
            </div>
          </Group>
          <IconDots size={18} color="var(--mantine-color-gray-6)" />
        </Group>
        {ad ? (
          <Text size="sm" style={{ whiteSpace: 'pre-wrap' }}>
            {text(ad.primary_text) || text(ad.title)}
          </Text>
        ) : (
          <Text size="sm" c="dimmed">
            Publish an ad in{' '}
            <Text component={Link} to={`/content?client_id=${clientId}`} size="sm" c="indigo" span>
              Content
            </Text>{' '}
            to see it here.
          </Text>
        )}
      </Stack>
      {ad ? (
        <Image
          src={`${ad.preview_paths['1200x628'] ?? ''}.png`}
          alt={`Ad ${contentLabel(ad)} at 1200x628`}
          style={{ aspectRatio: '1200 / 628' }}
          bg="gray.1"
        />
      ) : (
        <Box bg="gray.1" style={{ aspectRatio: '1200 / 628' }} />
      )}
      <Group justify="space-between" wrap="nowrap" bg="gray.0" px="md" py="sm" gap="sm">
        <div style={{ minWidth: 0 }}>
          <Text size="xs" c="dimmed" truncate>
            {host}
          </Text>
          <Text size="sm" fw={700} lineClamp={2}>
            {ad ? text(ad.title) || text(ad.image_text) : 'Your headline'}
          </Text>
        </div>
        <Button variant="default" size="xs" style={{ flex: 'none' }} tabIndex={-1}>
          {cta}
        </Button>
      </Group>
    </Paper>
  );
}
