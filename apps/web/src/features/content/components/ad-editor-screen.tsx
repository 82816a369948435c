import { useState } from 'react';
import {
  ActionIcon,
  Alert,
  Anchor,
  Box,
  Button,
  Grid,
  Group,
  Menu,
  SegmentedControl,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
  Title,
  Tooltip,
} from '@mantine/core';
import { useForm } from '@mantine/form';
import type { UseFormReturnType } from '@mantine/form';
import { useDebouncedValue } from '@mantine/hooks';
import { IconBraces, IconDeviceFloppy, IconRocket } from '@tabler/icons-react';
import { Link, useParams } from 'react-router';
import { fillTagsText, tagToken, tagsToTokens, tokensToTags } from '@rally/shared';
import {
  EMPTY_ASSIGNEE,
  PERSONALISATION_TAGS,
  adRenderBody,
  contentUpdateBody,
} from '@rally/shared/schemas/content';
import type {
  AdRenderBody,
  Assignee,
  ContentItem,
  ContentUpdateBody,
  TemplateId,
} from '@rally/shared/schemas/content';
import { fieldErrorsOf } from '../../../components/form-error.tsx';
import { ScreenLoader } from '../../../components/layouts/screen-suspense.tsx';
import { useUnsavedChangesPrompt } from '../../../lib/unsaved-changes.tsx';
import { useAuth } from '../../../lib/auth/store.ts';
import { useDeleteContentItem } from '../api/delete-content-item.ts';
import { useContentItem } from '../api/get-content-item.ts';
import { useLandingPages } from '../api/get-landing-pages.ts';
import { useUpdateContentItem } from '../api/update-content-item.ts';
import { AdPreview } from './ad-preview.tsx';
import { assigneeBody } from './assignee-fields.tsx';
import { BackLink } from './back-link.tsx';
import { COLOR_PATHS, ColorFields, colorValuesOf, colorsBody } from './color-fields.tsx';
import type { ColorValues } from './color-fields.tsx';
import { ArchivedBadge, ContentStatusBadge } from './content-badges.tsx';
import { contentLabel } from './content-list-screen.tsx';
import { DeleteRecordModal } from './delete-record-modal.tsx';
import { editSender } from './edit-sender.ts';
import { EditorActionsMenu, EditorHeader } from './editor-header.tsx';
import { EditorLoader } from './editor-loader.tsx';
import { EditorSaveError } from './editor-save-error.tsx';
import { schemaErrors } from './form-validation.ts';
import { PermissionNote, hasPermission } from './permission-note.tsx';
import { previewValues } from './personalise.ts';
import { RelativeTime } from './relative-time.tsx';
import { SalesRepFields } from './sales-rep-fields.tsx';
import { Section } from './section.tsx';
import { TemplatePicker } from './template-picker.tsx';

export type AdFormValues = {
  name: string;
  template_id: number;
  title: string;
  image_text: string;
  primary_text: string;
  colors: ColorValues;
  sdr_img_url: string;
  assignee: Assignee;
  landing_kind: 'page' | 'url';
  landing_page_id: string | null;
  landing_page_url: string;
};

export function adFormValues(item: ContentItem): AdFormValues {
  return {
    name: item.name ?? '',
    template_id: item.template_id,
    // Tags show as {{Label | fallback}}, never as markup (issue 42).
    title: tagsToTokens(item.title),
    image_text: tagsToTokens(item.image_text),
    primary_text: tagsToTokens(item.primary_text),
    colors: colorValuesOf(item.colors),
    sdr_img_url: item.sdr_img_url,
    assignee: item.assignee ?? EMPTY_ASSIGNEE,
    landing_kind: item.landing_page_url && !item.landing_page_id ? 'url' : 'page',
    landing_page_id: item.landing_page_id,
    landing_page_url: item.landing_page_url,
  };
}

/** The PATCH body of the form's fields (status, archive and updated_at are added by the action). */
export function adUpdateBody(v: AdFormValues): ContentUpdateBody {
  return {
    name: v.name.trim() || null,
    template_id: v.template_id,
    title: tokensToTags(v.title),
    image_text: tokensToTags(v.image_text),
    primary_text: tokensToTags(v.primary_text),
    colors: colorsBody(v.colors),
    sdr_img_url: v.sdr_img_url,
    assignee: assigneeBody(v.assignee),
    landing_page_id: v.landing_kind === 'page' ? v.landing_page_id : null,
    landing_page_url: v.landing_kind === 'url' ? v.landing_page_url.trim() : '',
  };
}

/** What the live preview renders: only the fields that change the picture. */
export function adRenderBodyOf(v: AdFormValues, buttonName: string | null | undefined): AdRenderBody {
  return {
    template_id: v.template_id,
    title: tokensToTags(v.title),
    image_text: tokensToTags(v.image_text),
    colors: colorsBody(v.colors),
    assignee: assigneeBody(v.assignee),
    sdr_img_url: v.sdr_img_url,
    landing_button_name: buttonName ?? null,
  };
}

/** The browser checks the shared request schema, so it refuses what the server would (same words). */
export const validateAdForm = (v: AdFormValues) => {
  const errors = schemaErrors(contentUpdateBody, adUpdateBody(v));
  // The URL's error belongs on the URL field the user sees.
  if (v.landing_kind === 'url' && errors.landing_page_url === undefined && errors.landing_page_id) {
    errors.landing_page_url = errors.landing_page_id;
  }
  return errors;
};

/**
 * Appends a personalisation tag (SPEC.md §5 data-id) to a text field, as `{{Label | fallback}}`
 * with the tag's usual fallback, which the user may edit in place.
 */
function TagMenu({ onInsert }: { onInsert: (token: string) => void }) {
  return (
    <Menu position="bottom-end" withinPortal width={220}>
      <Menu.Target>
        <Tooltip label="Insert a personalisation tag">
          <ActionIcon variant="subtle" color="gray" aria-label="Insert a personalisation tag">
            <IconBraces size={16} />
          </ActionIcon>
        </Tooltip>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>Filled in for each prospect</Menu.Label>
        {PERSONALISATION_TAGS.map((t) => (
          <Menu.Item key={t.id} onClick={() => onInsert(tagToken(t.id, t.fallback))}>
            {t.label}
          </Menu.Item>
        ))}
      </Menu.Dropdown>
    </Menu>
  );
}

/**
 * A field's description, plus how its personalisation tags read for the sample prospect and
 * without a prospect (the campaign files, e-mail previews), where each tag shows its fallback.
 */
function TagHint({ text, assignee, base }: { text: string; assignee: Assignee; base: string }) {
  const stored = tokensToTags(text);
  if (stored === text) return <>{base}</>;
  const rep = assigneeBody(assignee);
  const repOnly = Object.fromEntries(
    Object.entries(previewValues(rep)).filter(([k]) => !k.startsWith('prospect_')),
  );
  return (
    <>
      {base}. Reads: “{fillTagsText(stored, previewValues(rep))}”; without a prospect: “
      {fillTagsText(stored, repOnly)}”
    </>
  );
}

/** /content/{id}: the ad creative editor with its live preview at the four sizes. */
export function AdEditorScreen() {
  const auth = useAuth();
  const clientId = auth.currentClient;
  const { id = '' } = useParams();
  if (!clientId || !auth.currentRole) return <ScreenLoader />;
  const canWrite = hasPermission(auth.currentRole.permissions, 'content.write');
  return <AdEditorLoader key={`${clientId}:${id}`} clientId={clientId} id={id} canWrite={canWrite} />;
}

const listPath = (clientId: string) => `/content?client_id=${clientId}`;

function AdEditorLoader({ clientId, id, canWrite }: { clientId: string; id: string; canWrite: boolean }) {
  const item = useContentItem(clientId, id);
  return (
    <EditorLoader
      query={item}
      back={<BackLink to={listPath(clientId)} label="Content" />}
      notFound={{ title: 'Ad not found', text: 'This ad does not exist in this client, or it was deleted.' }}
      what="the ad"
    >
      {(data, onReload) => (
        <AdEditor clientId={clientId} item={data} canWrite={canWrite} onReload={onReload} />
      )}
    </EditorLoader>
  );
}

function AdEditor({
  clientId,
  item,
  canWrite,
  onReload,
}: {
  clientId: string;
  item: ContentItem;
  canWrite: boolean;
  onReload: () => Promise<void>;
}) {
  const update = useUpdateContentItem(clientId);
  const remove = useDeleteContentItem(clientId);
  const pages = useLandingPages(clientId);
  const [deleting, setDeleting] = useState(false);
  const [publishProblems, setPublishProblems] = useState(false);
  const form = useForm<AdFormValues>({
    mode: 'controlled',
    initialValues: adFormValues(item),
    validate: validateAdForm,
    validateInputOnChange: COLOR_PATHS,
    validateInputOnBlur: true,
  });
  // Not while deleting: the delete leaves for the list on purpose.
  const leavePrompt = useUnsavedChangesPrompt(form.isDirty() && !deleting, 'this ad');
  const [debounced] = useDebouncedValue(form.values, 400);
  const buttonName = item.landing_page_payload.landing_button_name;
  const renderBody = adRenderBodyOf(debounced, buttonName);
  const previewBody = adRenderBody.safeParse(renderBody).success ? renderBody : null;
  const disabled = !canWrite;

  const sendEdits = editSender({
    update,
    record: item,
    form,
    formValues: adFormValues,
    onError: (err, body) => {
      const fields = fieldErrorsOf(err);
      if (form.values.landing_kind === 'url' && fields.landing_page_id) {
        fields.landing_page_url = fields.landing_page_id;
      }
      form.setErrors(fields);
      if (body.status === 'published' && Object.keys(fields).length) setPublishProblems(true);
    },
  });
  const send = (body: ContentUpdateBody, done: string, opts: { keepForm?: boolean } = {}) => {
    setPublishProblems(false);
    sendEdits(body, done, opts);
  };
  const save = (status?: 'published' | 'draft') => {
    const checked = form.validate();
    if (checked.hasErrors) return;
    const body = { ...adUpdateBody(form.values), ...(status ? { status } : {}) };
    send(
      body,
      status === 'published'
        ? 'The ad is published: cadence days can show it.'
        : status === 'draft'
          ? 'The ad is back to draft.'
          : 'The ad has been saved.',
    );
  };
  const label = contentLabel({ name: form.values.name || item.name, title: item.title });

  return (
    <Stack gap="lg">
      {leavePrompt}
      <BackLink to={listPath(clientId)} label="Content" />
      <EditorHeader
        title={label}
        badges={
          <>
            <ContentStatusBadge status={item.status} />
            {item.is_archived && <ArchivedBadge />}
          </>
        }
        subtitle={
          <>
            Ad creative · <RelativeTime value={item.updated_at ?? item.created_at} prefix="updated " />
          </>
        }
        actions={
          canWrite && (
            <>
              <EditorActionsMenu
                archived={item.is_archived}
                onToggleArchive={() =>
                  send(
                    { is_archived: !item.is_archived },
                    item.is_archived ? 'The ad is back in the list.' : 'The ad has been archived.',
                    { keepForm: true },
                  )
                }
                onDelete={() => setDeleting(true)}
              >
                {item.status === 'published' && (
                  <Menu.Item onClick={() => save('draft')}>Move back to draft</Menu.Item>
                )}
              </EditorActionsMenu>
              <Button
                variant="default"
                leftSection={<IconDeviceFloppy size={16} />}
                onClick={() => save()}
                loading={update.isPending && update.variables?.body.status === undefined}
                disabled={!form.isDirty()}
              >
                Save
              </Button>
              {item.status === 'draft' && (
                <Button
                  leftSection={<IconRocket size={16} />}
                  onClick={() => save('published')}
                  loading={update.isPending && update.variables?.body.status === 'published'}
                >
                  Publish
                </Button>
              )}
            </>
          )
        }
      />
      {!canWrite && <PermissionNote permission="content.write" what="this ad" />}
      {publishProblems && (
        <Alert color="red" variant="light" title="Not published yet" role="alert">
          A published ad needs a title, image text and somewhere for a click to land. Fix the fields marked in
          red, then publish again.
        </Alert>
      )}
      <EditorSaveError error={update.error} onReload={onReload} />
      <Grid gap="lg">
        <Grid.Col span={{ base: 12, md: 5 }}>
          <AdFields clientId={clientId} form={form} disabled={disabled} pages={pages} />
        </Grid.Col>
        <Grid.Col span={{ base: 12, md: 7 }}>
          <Box pos="sticky" top={16}>
            <Stack gap="xs">
              <Group justify="space-between">
                <Title order={2} size="h4">
                  Preview
                </Title>
                <Text size="xs" c="dimmed">
                  Rendered as prospects see it · updates as you type
                </Text>
              </Group>
              <AdPreview clientId={clientId} body={previewBody} />
            </Stack>
          </Box>
        </Grid.Col>
      </Grid>
      <DeleteRecordModal
        opened={deleting}
        onClose={() => setDeleting(false)}
        title="Delete this ad?"
        id={item.id}
        name={label}
        remove={remove}
        listPath={listPath(clientId)}
      >
        “{label}” will be deleted for good. An ad that a cadence day shows cannot be deleted: archive it
        instead.
      </DeleteRecordModal>
    </Stack>
  );
}

export function AdFields({
  clientId,
  form,
  disabled,
  pages,
}: {
  clientId: string;
  form: UseFormReturnType<AdFormValues>;
  disabled: boolean;
  pages: ReturnType<typeof useLandingPages>;
}) {
  // Title, image text and primary text take personalisation tags, and say how they read.
  const tagged = (field: 'title' | 'image_text' | 'primary_text', description: string) => ({
    description: <TagHint text={form.values[field]} assignee={form.values.assignee} base={description} />,
    readOnly: disabled,
    rightSection: disabled ? undefined : (
      <TagMenu
        onInsert={(html) =>
          form.setFieldValue(field, `${form.values[field]}${form.values[field] ? ' ' : ''}${html}`)
        }
      />
    ),
    ...form.getInputProps(field),
  });
  const pageOptions = (pages.data?.items ?? []).map((p) => ({ value: p.id, label: p.name }));
  const chosen = form.values.landing_page_id;
  if (chosen && !pageOptions.some((o) => o.value === chosen)) {
    pageOptions.push({ value: chosen, label: 'An archived landing page' });
  }
  return (
    <Stack gap="md">
      <Section title="Ad">
        <TextInput
          label="Name"
          description="For you and your team; prospects never see it"
          readOnly={disabled}
          {...form.getInputProps('name')}
        />
        <TemplatePicker
          value={form.values.template_id}
          onChange={(v: TemplateId) => form.setFieldValue('template_id', v)}
          disabled={disabled}
          error={form.errors.template_id as string | undefined}
        />
        <TextInput label="Title" {...tagged('title', 'A short line above the image text')} />
        <Textarea
          label="Image text"
          autosize
          minRows={2}
          maxRows={4}
          {...tagged('image_text', 'The headline printed on the ad')}
        />
        <Textarea
          label="Primary text"
          autosize
          minRows={2}
          maxRows={6}
          {...tagged('primary_text', 'The post text shown with the ad on social networks')}
        />
      </Section>
      <Section
        title="Colours"
        description="Text is drawn black or white, whichever reads clearly on what is behind it."
      >
        <ColorFields inputProps={(k) => form.getInputProps(`colors.${k}`)} disabled={disabled} />
      </Section>
      <Section
        title="Sales rep"
        description="Who the ad speaks for. When a prospect sees it, their own rep's details are used."
      >
        <SalesRepFields clientId={clientId} form={form} disabled={disabled} />
      </Section>
      <Section title="Landing page" description="Where a click on the ad goes.">
        <SegmentedControl
          value={form.values.landing_kind}
          onChange={(v) => form.setFieldValue('landing_kind', v as AdFormValues['landing_kind'])}
          data={[
            { value: 'page', label: 'One of your landing pages' },
            { value: 'url', label: 'A web address' },
          ]}
          readOnly={disabled}
          fullWidth
        />
        {form.values.landing_kind === 'page' ? (
          <Select
            label="Landing page"
            placeholder={
              pages.isPending
                ? 'Loading landing pages…'
                : pageOptions.length
                  ? 'Choose a page'
                  : 'No landing pages yet'
            }
            data={pageOptions}
            clearable
            readOnly={disabled}
            description={
              <>
                Pages are made in{' '}
                <Anchor
                  component={Link}
                  to={`/landing-pages?client_id=${clientId}`}
                  size="xs"
                  underline="always"
                >
                  Landing pages
                </Anchor>
                .
              </>
            }
            {...form.getInputProps('landing_page_id')}
          />
        ) : (
          <TextInput
            label="Landing page URL"
            placeholder="https://example.com/offer"
            readOnly={disabled}
            {...form.getInputProps('landing_page_url')}
          />
        )}
      </Section>
    </Stack>
  );
}
