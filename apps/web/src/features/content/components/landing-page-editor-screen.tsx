import { Suspense, lazy, useState } from 'react';
import type { ComponentProps } from 'react';
import {
  ActionIcon,
  Alert,
  Anchor,
  Autocomplete,
  Box,
  Button,
  CopyButton,
  Grid,
  Group,
  Menu,
  Modal,
  Paper,
  Skeleton,
  SegmentedControl,
  SimpleGrid,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useElementSize } from '@mantine/hooks';
import { notifications } from '@mantine/notifications';
import {
  IconArchive,
  IconArchiveOff,
  IconArrowLeft,
  IconCheck,
  IconCopy,
  IconDeviceFloppy,
  IconDots,
  IconExternalLink,
  IconTrash,
} from '@tabler/icons-react';
import { Link, useNavigate, useParams } from 'react-router';
import { EMPTY_ASSIGNEE, landingPageUpdateBody } from '@rally/shared/schemas/content';
import type { Assignee, LandingPage, LandingPageUpdateBody } from '@rally/shared/schemas/content';
import { FormError, fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { PanelError } from '../../../components/panel-states.tsx';
import { ApiError } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { useDeleteLandingPage } from '../api/delete-landing-page.ts';
import { useLandingPage } from '../api/get-landing-page.ts';
import { useUpdateLandingPage } from '../api/update-landing-page.ts';
import { AssigneeFields, assigneeBody, assigneeOfRep } from './assignee-fields.tsx';
import { ColorFields, colorValuesOf, colorsBody } from './color-fields.tsx';
import type { ColorValues } from './color-fields.tsx';
import { ArchivedBadge } from './content-badges.tsx';
import { schemaErrors } from './form-validation.ts';
import { ImageUpload } from './image-upload.tsx';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { RelativeTime } from './relative-time.tsx';
import { Section } from './section.tsx';

// TipTap and ProseMirror load with this screen only, not with every content screen.
const LazyRichTextField = lazy(() =>
  import('./rich-text-field.tsx').then((m) => ({ default: m.RichTextField })),
);

function RichTextField(props: ComponentProps<typeof LazyRichTextField>) {
  return (
    <Suspense fallback={<Skeleton h={(props.minHeight ?? 120) + 70} radius="md" aria-label={props.label} />}>
      <LazyRichTextField {...props} />
    </Suspense>
  );
}

export type LandingPageFormValues = {
  name: string;
  landing_page_payload: {
    hero_html: string;
    content_html: string;
    footer_html: string;
    hero_img: string;
    landing_button_name: string;
    landing_trigger_field: string;
    landing_trigger_type: string;
  };
  sdr_img_url: string;
  logo_url: string;
  favicon_url: string;
  colors: ColorValues;
  assignee: Assignee;
};

export function landingPageFormValues(page: LandingPage): LandingPageFormValues {
  const p = page.landing_page_payload;
  return {
    name: page.name,
    landing_page_payload: {
      hero_html: p.hero_html,
      content_html: p.content_html,
      footer_html: p.footer_html,
      hero_img: p.hero_img,
      landing_button_name: p.landing_button_name ?? '',
      landing_trigger_field: p.landing_trigger_field ?? '',
      landing_trigger_type: p.landing_trigger_type ?? '',
    },
    sdr_img_url: page.sdr_img_url,
    logo_url: page.logo_url,
    favicon_url: page.favicon_url,
    colors: colorValuesOf(page.colors),
    assignee: page.assignee ?? EMPTY_ASSIGNEE,
  };
}

const orNull = (v: string) => (v.trim() === '' ? null : v.trim());

export function landingPageBody(v: LandingPageFormValues): LandingPageUpdateBody {
  const p = v.landing_page_payload;
  return {
    name: v.name,
    landing_page_payload: {
      hero_html: p.hero_html,
      content_html: p.content_html,
      footer_html: p.footer_html,
      hero_img: p.hero_img,
      landing_button_name: orNull(p.landing_button_name),
      landing_trigger_field: orNull(p.landing_trigger_field),
      landing_trigger_type: orNull(p.landing_trigger_type),
    },
    sdr_img_url: v.sdr_img_url,
    logo_url: v.logo_url,
    favicon_url: v.favicon_url,
    colors: colorsBody(v.colors),
    assignee: assigneeBody(v.assignee),
  };
}

export const validateLandingPageForm = (v: LandingPageFormValues) =>
  schemaErrors(landingPageUpdateBody, landingPageBody(v));

/** The field the button takes its link from, and what kind of control it is. */
const TRIGGER_FIELDS = ['calendar_url', 'website'];
const TRIGGER_TYPES = ['button', 'link'];

/** /landing-pages/{id}: the landing page editor with a preview of the public page. */
export function LandingPageEditorScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const { id = '' } = useParams();
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const perms = auth.currentRole.permissions;
  return (
    <LandingPageLoader
      key={`${clientId}:${id}`}
      clientId={clientId}
      id={id}
      canWrite={hasPermission(perms, 'content.write')}
      canBrand={hasPermission(perms, 'settings.write')}
    />
  );
}

function BackLink({ clientId }: { clientId: string }) {
  return (
    <Anchor component={Link} to={`/landing-pages?client_id=${clientId}`} size="sm" w="fit-content">
      <Group gap={4}>
        <IconArrowLeft size={14} />
        Landing pages
      </Group>
    </Anchor>
  );
}

function LandingPageLoader({
  clientId,
  id,
  canWrite,
  canBrand,
}: {
  clientId: string;
  id: string;
  canWrite: boolean;
  canBrand: boolean;
}) {
  const page = useLandingPage(clientId, id);
  const [version, setVersion] = useState(0);
  if (page.isPending) return <ScreenLoader />;
  if (page.isError) {
    const notFound =
      page.error instanceof ApiError && (page.error.status === 404 || page.error.status === 422);
    return (
      <Stack gap="md">
        <BackLink clientId={clientId} />
        {notFound ? (
          <Alert color="gray" title="Landing page not found">
            This landing page does not exist in this client, or it was deleted.
          </Alert>
        ) : (
          <PanelError error={page.error} what="the landing page" onRetry={() => void page.refetch()} />
        )}
      </Stack>
    );
  }
  return (
    <LandingPageEditor
      key={version}
      clientId={clientId}
      page={page.data}
      canWrite={canWrite}
      canBrand={canBrand}
      onReload={async () => {
        await page.refetch();
        setVersion((v) => v + 1);
      }}
    />
  );
}

function LandingPageEditor({
  clientId,
  page,
  canWrite,
  canBrand,
  onReload,
}: {
  clientId: string;
  page: LandingPage;
  canWrite: boolean;
  canBrand: boolean;
  onReload: () => Promise<void>;
}) {
  const navigate = useNavigate();
  const update = useUpdateLandingPage(clientId);
  const remove = useDeleteLandingPage(clientId);
  const [deleting, setDeleting] = useState(false);
  const form = useForm<LandingPageFormValues>({
    mode: 'controlled',
    initialValues: landingPageFormValues(page),
    validate: validateLandingPageForm,
    validateInputOnChange: ['colors.background', 'colors.text', 'colors.accent', 'colors.primary'],
    validateInputOnBlur: true,
  });
  const disabled = !canWrite;

  const send = (body: LandingPageUpdateBody, done: string, opts: { keepForm?: boolean } = {}) =>
    update.mutate(
      { id: page.id, body: { ...body, updated_at: page.updated_at } },
      {
        onSuccess: (saved) => {
          notifications.show({ color: 'green', message: done });
          if (!opts.keepForm) {
            form.setValues(landingPageFormValues(saved));
            form.resetDirty(landingPageFormValues(saved));
          }
        },
        onError: (err) => form.setErrors(fieldErrorsOf(err)),
      },
    );
  const save = () => {
    if (form.validate().hasErrors) return;
    send(landingPageBody(form.values), 'The landing page has been saved.');
  };
  const conflict = update.error instanceof ApiError && update.error.status === 409;
  const hasFieldErrors = Object.keys(fieldErrorsOf(update.error)).length > 0;
  const payload = (k: keyof LandingPageFormValues['landing_page_payload']) =>
    form.getInputProps(`landing_page_payload.${k}`);
  // Brand images go through the logo and favicon checks for those who may set brand settings.
  const brandKind = (kind: 'logo' | 'favicon') => (canBrand ? kind : 'image');

  return (
    <Stack gap="lg">
      <BackLink clientId={clientId} />
      <Group justify="space-between" align="flex-start" wrap="wrap" gap="sm">
        <div style={{ minWidth: 0 }}>
          <Group gap="sm" wrap="nowrap">
            <Title order={1} lineClamp={1}>
              {form.values.name.trim() || page.name}
            </Title>
            {page.is_archived && <ArchivedBadge />}
          </Group>
          <Text size="sm" c="dimmed">
            Landing page · <RelativeTime value={page.updated_at} prefix="updated " />
          </Text>
        </div>
        {canWrite && (
          <Group gap="xs" wrap="nowrap">
            <Menu position="bottom-end" withinPortal>
              <Menu.Target>
                <ActionIcon variant="default" size="lg" aria-label="More actions">
                  <IconDots size={18} />
                </ActionIcon>
              </Menu.Target>
              <Menu.Dropdown>
                <Menu.Item
                  leftSection={page.is_archived ? <IconArchiveOff size={16} /> : <IconArchive size={16} />}
                  onClick={() =>
                    send(
                      { is_archived: !page.is_archived },
                      page.is_archived
                        ? 'The landing page is back in the list.'
                        : 'The landing page has been archived.',
                      { keepForm: true },
                    )
                  }
                >
                  {page.is_archived ? 'Unarchive' : 'Archive'}
                </Menu.Item>
                <Menu.Divider />
                <Menu.Item
                  color="red"
                  leftSection={<IconTrash size={16} />}
                  onClick={() => setDeleting(true)}
                >
                  Delete
                </Menu.Item>
              </Menu.Dropdown>
            </Menu>
            <Button
              leftSection={<IconDeviceFloppy size={16} />}
              onClick={save}
              loading={update.isPending}
              disabled={!form.isDirty()}
            >
              Save
            </Button>
          </Group>
        )}
      </Group>
      {!canWrite && <PermissionNote permission="content.write" what="this landing page" />}
      {conflict && (
        <Alert color="orange" variant="light" title="Changed elsewhere" role="alert">
          <Stack gap="xs" align="flex-start">
            <Text size="sm">{update.error?.message}</Text>
            <Button size="xs" variant="white" color="orange" onClick={() => void onReload()}>
              Reload
            </Button>
          </Stack>
        </Alert>
      )}
      {!conflict && !hasFieldErrors && <FormError error={update.error} />}
      {hasFieldErrors && (
        <Alert color="red" variant="light" role="alert">
          Some fields need fixing: they are marked in red.
        </Alert>
      )}
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Stack gap="md">
            <Section title="Page">
              <TextInput
                label="Name"
                description="For you and your team"
                readOnly={disabled}
                {...form.getInputProps('name')}
              />
            </Section>
            <Section title="Hero" description="The top of the page: your headline and a picture.">
              <RichTextField
                label="Hero text"
                value={form.values.landing_page_payload.hero_html}
                onChange={(html) => form.setFieldValue('landing_page_payload.hero_html', html)}
                disabled={disabled}
                error={form.errors['landing_page_payload.hero_html'] as string | undefined}
              />
              <ImageUpload
                clientId={clientId}
                kind="hero"
                label="Hero image"
                shape="wide"
                value={form.values.landing_page_payload.hero_img}
                onChange={(url) => form.setFieldValue('landing_page_payload.hero_img', url)}
                disabled={disabled}
                error={form.errors['landing_page_payload.hero_img'] as string | undefined}
              />
            </Section>
            <Section title="Content">
              <RichTextField
                label="Content"
                value={form.values.landing_page_payload.content_html}
                onChange={(html) => form.setFieldValue('landing_page_payload.content_html', html)}
                disabled={disabled}
                minHeight={180}
                error={form.errors['landing_page_payload.content_html'] as string | undefined}
              />
            </Section>
            <Section title="Footer">
              <RichTextField
                label="Footer"
                value={form.values.landing_page_payload.footer_html}
                onChange={(html) => form.setFieldValue('landing_page_payload.footer_html', html)}
                disabled={disabled}
                minHeight={60}
                error={form.errors['landing_page_payload.footer_html'] as string | undefined}
              />
            </Section>
            <Section
              title="Button"
              description="The call to action beside the rep. Left empty, the brand settings apply."
            >
              <TextInput
                label="Button name"
                placeholder="Book a meeting"
                readOnly={disabled}
                {...payload('landing_button_name')}
              />
              <SimpleGrid cols={2} spacing="sm">
                <Autocomplete
                  label="Trigger field"
                  description="Where the button links to"
                  placeholder="calendar_url"
                  data={TRIGGER_FIELDS}
                  readOnly={disabled}
                  {...payload('landing_trigger_field')}
                />
                <Autocomplete
                  label="Trigger type"
                  description="How it shows"
                  placeholder="button"
                  data={TRIGGER_TYPES}
                  readOnly={disabled}
                  {...payload('landing_trigger_type')}
                />
              </SimpleGrid>
            </Section>
            <Section
              title="Brand"
              description="Left empty, the logo and favicon of the brand settings apply."
            >
              <SimpleGrid cols={{ base: 1, xs: 2 }} spacing="sm">
                <ImageUpload
                  clientId={clientId}
                  kind={brandKind('logo')}
                  label="Logo"
                  shape="wide"
                  value={form.values.logo_url}
                  onChange={(url) => form.setFieldValue('logo_url', url)}
                  disabled={disabled}
                  error={form.errors.logo_url as string | undefined}
                />
                <ImageUpload
                  clientId={clientId}
                  kind={brandKind('favicon')}
                  label="Favicon"
                  value={form.values.favicon_url}
                  onChange={(url) => form.setFieldValue('favicon_url', url)}
                  disabled={disabled}
                  error={form.errors.favicon_url as string | undefined}
                />
              </SimpleGrid>
              <ColorFields inputProps={(k) => form.getInputProps(`colors.${k}`)} disabled={disabled} />
            </Section>
            <Section
              title="Sales rep"
              description="Shown with a button to their calendar. A prospect’s own rep replaces them."
            >
              <ImageUpload
                clientId={clientId}
                kind="photo"
                label="Rep photo"
                shape="circle"
                value={form.values.sdr_img_url}
                onChange={(url) => form.setFieldValue('sdr_img_url', url)}
                disabled={disabled}
                error={form.errors.sdr_img_url as string | undefined}
              />
              <AssigneeFields
                clientId={clientId}
                disabled={disabled}
                inputProps={(k) => form.getInputProps(`assignee.${k}`)}
                onPickRep={(rep) => {
                  form.setFieldValue('assignee', assigneeOfRep(rep, form.values.assignee.website));
                  if (rep.photo_url) form.setFieldValue('sdr_img_url', rep.photo_url);
                }}
              />
            </Section>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Box pos="sticky" top={16}>
            <PagePreview page={page} dirty={form.isDirty()} />
          </Box>
        </Grid.Col>
      </Grid>
      <Modal opened={deleting} onClose={() => setDeleting(false)} title="Delete this landing page?">
        <Stack gap="md">
          <Text size="sm">
            “{page.name}” and its public link will be gone for good. A page that ads link to cannot be
            deleted: archive it instead.
          </Text>
          <FormError error={remove.error} />
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setDeleting(false)}>
              Cancel
            </Button>
            <Button
              color="red"
              loading={remove.isPending}
              onClick={() =>
                remove.mutate(page.id, {
                  onSuccess: () => {
                    notifications.show({ color: 'green', message: `“${page.name}” has been deleted.` });
                    navigate(`/landing-pages?client_id=${clientId}`);
                  },
                })
              }
            >
              Delete
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}

const DESKTOP_WIDTH = 1280;
const PREVIEW_HEIGHT = 760;

/** The saved public page in a frame: desktop scaled to fit, or a phone at its own size. */
function PagePreview({ page, dirty }: { page: LandingPage; dirty: boolean }) {
  const [device, setDevice] = useState<'desktop' | 'mobile'>('desktop');
  const { ref, width } = useElementSize();
  const url = new URL(page.public_path, window.location.origin).toString();
  const scale = device === 'desktop' && width > 0 ? Math.min(1, width / DESKTOP_WIDTH) : 1;
  const frameWidth = device === 'desktop' ? DESKTOP_WIDTH : 390;
  return (
    <Stack gap="xs">
      <Group justify="space-between" wrap="nowrap">
        <Title order={2} size="h4">
          Preview
        </Title>
        <Group gap="xs" wrap="nowrap">
          <SegmentedControl
            size="xs"
            value={device}
            onChange={(v) => setDevice(v as 'desktop' | 'mobile')}
            data={[
              { value: 'desktop', label: 'Desktop' },
              { value: 'mobile', label: 'Mobile' },
            ]}
            aria-label="Preview size"
          />
          <CopyButton value={url}>
            {({ copied, copy }) => (
              <Tooltip label={copied ? 'Copied' : 'Copy the public link'} openDelay={200}>
                <ActionIcon variant="default" onClick={copy} aria-label="Copy the public link">
                  {copied ? <IconCheck size={16} /> : <IconCopy size={16} />}
                </ActionIcon>
              </Tooltip>
            )}
          </CopyButton>
          <Button
            component="a"
            href={page.public_path}
            target="_blank"
            rel="noreferrer"
            size="xs"
            variant="light"
            rightSection={<IconExternalLink size={14} />}
          >
            Open
          </Button>
        </Group>
      </Group>
      <Text size="xs" c="dimmed">
        {page.is_archived
          ? 'Archived: the public link shows “not found” until the page is unarchived.'
          : dirty
            ? 'This is the saved page; save to see your changes here.'
            : `Public at ${url}`}
      </Text>
      <Paper
        withBorder
        radius="md"
        bg="gray.1"
        p={device === 'mobile' ? 'md' : 0}
        style={{ overflow: 'hidden' }}
      >
        <div ref={ref} style={{ width: '100%', height: PREVIEW_HEIGHT * (device === 'desktop' ? scale : 1) }}>
          <iframe
            key={`${page.updated_at}:${device}`}
            title="Landing page preview"
            src={page.public_path}
            // Shown as a visitor sees it, in an opaque origin (no allow-same-origin): even a script
            // that got past the page's CSP (no script source at all) could not reach the app.
            // allow-scripts only spares tools that inspect frames (traces) a console error.
            sandbox="allow-scripts allow-popups allow-popups-to-escape-sandbox"
            style={{
              width: frameWidth,
              height: device === 'desktop' ? PREVIEW_HEIGHT : PREVIEW_HEIGHT - 32,
              border: 0,
              display: 'block',
              margin: device === 'mobile' ? '0 auto' : undefined,
              background: 'white',
              borderRadius: device === 'mobile' ? 12 : 0,
              transform: device === 'desktop' ? `scale(${scale})` : undefined,
              transformOrigin: 'top left',
            }}
          />
        </div>
      </Paper>
    </Stack>
  );
}
