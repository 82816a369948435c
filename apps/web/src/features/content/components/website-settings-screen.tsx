import { Box, Grid, Group, Image, Paper, Stack, Text, TextInput, Title } from '@mantine/core';
import { IconWorld } from '@tabler/icons-react';
import { isHexColor, readableTextColorOn } from '@rally/shared';
import type { ClientSettings, ClientSettingsUpdateBody } from '@rally/shared/schemas/content';
import { useClientSettingsForm } from '../hooks/use-client-settings-form.ts';
import { BrandSettingsScreen } from './brand-settings-screen.tsx';
import type { SettingsFormProps } from './brand-settings-screen.tsx';
import { COLOR_PATHS, ColorFields, colorValuesOf, colorsBody } from './color-fields.tsx';
import type { ColorValues } from './color-fields.tsx';
import { LandingButtonFields } from './landing-button-fields.tsx';
import { LogoFaviconFields } from './logo-favicon-fields.tsx';
import { Section } from './section.tsx';
import { SettingsSaveFooter } from './settings-save-footer.tsx';

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
  return (
    <BrandSettingsScreen
      title="Brand & website"
      description="Your brand on landing pages and ads: website, logo, favicon, colours and the button prospects press."
      what="brand settings"
      form={WebsiteForm}
    />
  );
}

function WebsiteForm({ clientId, settings, canWrite }: SettingsFormProps) {
  const { form, update, onSubmit } = useClientSettingsForm({
    clientId,
    settings,
    formValues: websiteFormValues,
    body: websiteBody,
    saved: 'The brand settings have been saved.',
    validateInputOnChange: COLOR_PATHS,
  });
  const disabled = !canWrite;
  return (
    <form noValidate onSubmit={onSubmit}>
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
              <LogoFaviconFields clientId={clientId} form={form} disabled={disabled} />
            </Section>
            <Section title="Colours" description="New ads and landing pages start with these colours.">
              <ColorFields inputProps={(k) => form.getInputProps(`colors.${k}`)} disabled={disabled} />
            </Section>
            <Section
              title="Landing page button"
              description="Used on landing pages and ads that do not name their own."
            >
              <LandingButtonFields inputProps={(k) => form.getInputProps(k)} disabled={disabled} />
            </Section>
            <SettingsSaveFooter
              error={update.error}
              saving={update.isPending}
              dirty={form.isDirty()}
              canWrite={canWrite}
            />
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

/**
 * How the brand looks at the top of a landing page (a sketch; the page itself decides details). Text
 * is black or white by SPEC.md §9 with a WCAG AA floor (docs/decisions/0011-readable-text-colour.md).
 */
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
              <Text fw={700} c={readableTextColorOn(background, 'title')}>
                Your logo
              </Text>
            )}
            <Box
              px="sm"
              py={6}
              style={{ background: button, color: readableTextColorOn(button, 'body'), borderRadius: 999 }}
            >
              <Text size="xs" fw={600} span>
                {values.landing_button_name.trim() || 'Book a meeting'}
              </Text>
            </Box>
          </Group>
          <Text fw={700} size="xl" c={readableTextColorOn(background, 'title')} lh={1.2}>
            Your headline, written for each prospect
          </Text>
          <Text size="sm" c={readableTextColorOn(background, 'body')}>
            Text is drawn black or white, whichever reads clearly on what is behind it.
          </Text>
        </Stack>
      </Paper>
    </Stack>
  );
}
