import { Suspense, lazy, useState } from 'react';
import type { ComponentProps } from 'react';
import {
  ActionIcon,
  Alert,
  Box,
  Button,
  CopyButton,
  Grid,
  Group,
  Paper,
  Skeleton,
  SegmentedControl,
  Stack,
  Text,
  TextInput,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import { useElementSize } from '@mantine/hooks';
import { IconCheck, IconCopy, IconDeviceFloppy, IconExternalLink } from '@tabler/icons-react';
import { useParams } from 'react-router';
import { EMPTY_ASSIGNEE, landingPageUpdateBody } from '@rally/shared/schemas/content';
import type { Assignee, LandingPage, LandingPageUpdateBody } from '@rally/shared/schemas/content';
import { fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useUnsavedChangesPrompt } from '../../../lib/unsaved-changes.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useDeleteLandingPage } from '../api/delete-landing-page.ts';
import { useLandingPage } from '../api/get-landing-page.ts';
import { useUpdateLandingPage } from '../api/update-landing-page.ts';
import { assigneeBody } from './assignee-fields.tsx';
import { BackLink } from './back-link.tsx';
import { COLOR_PATHS, ColorFields, colorValuesOf, colorsBody } from './color-fields.tsx';
import type { ColorValues } from './color-fields.tsx';
import { ArchivedBadge } from './content-badges.tsx';
import { DeleteRecordModal } from './delete-record-modal.tsx';
import { editSender } from './edit-sender.ts';
import { EditorActionsMenu, EditorHeader } from './editor-header.tsx';
import { EditorLoader } from './editor-loader.tsx';
import { EditorSaveError } from './editor-save-error.tsx';
import { schemaErrors } from './form-validation.ts';
import { ImageUpload } from './image-upload.tsx';
import { CalendarLinkWarning } from './calendar-link-warning.tsx';
import { LandingButtonFields } from './landing-button-fields.tsx';
import { LogoFaviconFields } from './logo-favicon-fields.tsx';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { RelativeTime } from './relative-time.tsx';
import { SalesRepFields } from './sales-rep-fields.tsx';
import { Section } from './section.tsx';

// TipTap and ProseMirror load with this screen only, not with every content screen.
const LazyRichTextField = lazy(() =>
  import('./rich-text-field.tsx').then((m) => ({ default: m.RichTextField })),
);

function RichTextField(props: ComponentProps<typeof LazyRichTextField>) {
  return (
    <Suspense
      fallback={
        <Skeleton h={(props.minHeight ?? 120) + 70} radius="md" role="status" aria-label={props.label} />
      }
    >
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

const listPath = (clientId: string) => `/landing-pages?client_id=${clientId}`;

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
  return (
    <EditorLoader
      query={page}
      back={<BackLink to={listPath(clientId)} label="Landing pages" />}
      notFound={{
        title: 'Landing page not found',
        text: 'This landing page does not exist in this client, or it was deleted.',
      }}
      what="the landing page"
    >
      {(data, onReload) => (
        <LandingPageEditor
          clientId={clientId}
          page={data}
          canWrite={canWrite}
          canBrand={canBrand}
          onReload={onReload}
        />
      )}
    </EditorLoader>
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
  const update = useUpdateLandingPage(clientId);
  const remove = useDeleteLandingPage(clientId);
  const [deleting, setDeleting] = useState(false);
  const form = useForm<LandingPageFormValues>({
    mode: 'controlled',
    initialValues: landingPageFormValues(page),
    validate: validateLandingPageForm,
    validateInputOnChange: COLOR_PATHS,
    validateInputOnBlur: true,
  });
  // Not while deleting: the delete leaves for the list on purpose.
  const leavePrompt = useUnsavedChangesPrompt(form.isDirty() && !deleting, 'this landing page');
  const disabled = !canWrite;

  const send = editSender({ update, record: page, form, formValues: landingPageFormValues });
  const save = () => {
    if (form.validate().hasErrors) return;
    send(landingPageBody(form.values), 'The landing page has been saved.');
  };
  const hasFieldErrors = Object.keys(fieldErrorsOf(update.error)).length > 0;
  const payload = (k: keyof LandingPageFormValues['landing_page_payload']) =>
    form.getInputProps(`landing_page_payload.${k}`);
  // The hero, content and footer are rich text of the page's payload.
  const richText = (k: 'hero_html' | 'content_html' | 'footer_html') => ({
    value: form.values.landing_page_payload[k],
    onChange: (html: string) => form.setFieldValue(`landing_page_payload.${k}`, html),
    disabled,
    error: form.errors[`landing_page_payload.${k}`] as string | undefined,
  });

  return (
    <Stack gap="lg">
      {leavePrompt}
      <BackLink to={listPath(clientId)} label="Landing pages" />
      <EditorHeader
        title={form.values.name.trim() || page.name}
        badges={page.is_archived && <ArchivedBadge />}
        subtitle={
          <>
            Landing page · <RelativeTime value={page.updated_at} prefix="updated " />
          </>
        }
        actions={
          canWrite && (
            <>
              <EditorActionsMenu
                archived={page.is_archived}
                onToggleArchive={() =>
                  send(
                    { is_archived: !page.is_archived },
                    page.is_archived
                      ? 'The landing page is back in the list.'
                      : 'The landing page has been archived.',
                    { keepForm: true },
                  )
                }
                onDelete={() => setDeleting(true)}
              />
              <Button
                leftSection={<IconDeviceFloppy size={16} />}
                onClick={save}
                loading={update.isPending}
                disabled={!form.isDirty()}
              >
                Save
              </Button>
            </>
          )
        }
      />
      {!canWrite && <PermissionNote permission="content.write" what="this landing page" />}
      <EditorSaveError error={update.error} onReload={onReload} />
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
              <RichTextField label="Hero text" {...richText('hero_html')} />
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
              <RichTextField label="Content" minHeight={180} {...richText('content_html')} />
            </Section>
            <Section title="Footer">
              <RichTextField label="Footer" minHeight={60} {...richText('footer_html')} />
            </Section>
            <Section
              title="Button"
              description="The call to action beside the rep. Left empty, the brand settings apply."
            >
              <LandingButtonFields inputProps={payload} disabled={disabled} />
              <CalendarLinkWarning
                assignee={form.values.assignee}
                buttonName={form.values.landing_page_payload.landing_button_name}
              />
            </Section>
            <Section
              title="Brand"
              description="Left empty, the logo and favicon of the brand settings apply."
            >
              <LogoFaviconFields clientId={clientId} form={form} disabled={disabled} brandChecks={canBrand} />
              <ColorFields inputProps={(k) => form.getInputProps(`colors.${k}`)} disabled={disabled} />
            </Section>
            <Section
              title="Sales rep"
              description="Shown with a button to their calendar. A prospect’s own rep replaces them."
            >
              <SalesRepFields clientId={clientId} form={form} disabled={disabled} />
            </Section>
          </Stack>
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 6 }}>
          <Box pos="sticky" top={16}>
            <PagePreview page={page} dirty={form.isDirty()} />
          </Box>
        </Grid.Col>
      </Grid>
      <DeleteRecordModal
        opened={deleting}
        onClose={() => setDeleting(false)}
        title="Delete this landing page?"
        id={page.id}
        name={page.name}
        remove={remove}
        listPath={listPath(clientId)}
      >
        “{page.name}” and its public link will be gone for good. A page that ads link to cannot be deleted:
        archive it instead.
      </DeleteRecordModal>
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
      {/* Wraps on a phone: the title and the controls side by side are 4 px wider than 375 px. */}
      <Group justify="space-between" gap="xs">
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
              <Tooltip label={copied ? 'Copied' : 'Copy the public link'}>
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
