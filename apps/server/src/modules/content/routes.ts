import fastifyMultipart from '@fastify/multipart';
import { CACHES, cacheDepsOf, forgetShared } from '../../lib/shared-cache.ts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { findDataIds } from '@rally/shared';
import type { Permission } from '@rally/shared';
import { fieldErrorReply as errorReply } from '@rally/shared/schemas/auth';
import {
  PERSONALISATION_TAGS,
  UPLOAD_MAX_BYTES,
  clientSettingsSchema,
  clientSettingsUpdateBody,
  contentCreateBody,
  contentItemSchema,
  contentListQuery,
  contentListReply,
  contentUpdateBody,
  landingDomainBody,
  landingDomainCheckReply,
  landingDomainReply,
  landingPageCreateBody,
  landingPageListReply,
  landingPageSchema,
  landingPageUpdateBody,
  parsePbaBody,
  parsePbaReply,
  pbaBody,
  pbaReply,
  uploadKindSchema,
  uploadListQuery,
  uploadListReply,
  uploadReply,
} from '@rally/shared/schemas/content';
import type { UploadKind } from '@rally/shared/schemas/content';
import {
  PBA_CSV_MAX_CHARS,
  PBA_MAX_ROWS,
  pbaCohortReply,
  pbaPeopleReply,
} from '@rally/shared/schemas/campaigns';
import type { PbaRow } from '@rally/shared/schemas/campaigns';
import { authOf, requirePermission, tenantOf } from '../../lib/access.ts';
import { sendCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import {
  createContent,
  createLandingPage,
  deleteContent,
  deleteLandingPage,
  getContent,
  getLandingPage,
  listContent,
  listLandingPages,
  personalisationValues,
  updateContent,
  updateLandingPage,
} from './service.ts';
import { getClientSettings, updateClientSettings } from './settings.ts';
import {
  checkLandingDomain,
  getLandingDomain,
  removeLandingDomain,
  setLandingDomain,
} from './landing-domain.ts';
import { personaliseContent } from './text.ts';
import { createResolver } from '../../lib/dns.ts';
import { blobStoreOf, listUploads, readUpload, saveUpload } from './uploads.ts';
import { multipartProblem } from '../../lib/multipart.ts';
import { ATTRIBUTION_JOB } from '../reports/jobs.ts';
import { auditRequest, changedFields } from '../audit/index.ts';

const clientParam = z.uuid({ error: 'must be the id (UUID) of a client' });
const contentParams = z.object({ id: z.uuid({ error: 'must be the id (UUID) of a content item' }) });
const clientParams = z.object({ clientId: clientParam });
const landingParams = z.object({
  clientId: clientParam,
  id: z.uuid({ error: 'must be the id (UUID) of a landing page' }),
});
const archivedQuery = z.object({
  archived: z.enum(['false', 'true', 'only'], { error: 'must be false, true or only' }).default('false'),
});

const READ = { access: 'member' } as const;
const CONTENT_WRITE = { access: { permission: 'content.write' } } as const;
const SETTINGS_WRITE = { access: { permission: 'settings.write' } } as const;
const errors = { 404: errorReply, 409: errorReply, 422: errorReply };

const parsePbaQuery = z.object({
  format: z.enum(['json', 'csv'], { error: 'must be json or csv' }).default('json'),
});
/** The people check as a file: every row with whether it is usable and why not. */
const PEOPLE_CSV_COLUMNS: CsvColumn<PbaRow>[] = [
  { header: 'row', value: (r) => r.row },
  { header: 'usable', value: (r) => r.usable },
  { header: 'reasons', value: (r) => r.reasons.join('; ') },
  { header: 'email', value: (r) => r.email },
  { header: 'first_name', value: (r) => r.first_name },
  { header: 'last_name', value: (r) => r.last_name },
  { header: 'company', value: (r) => r.company },
  { header: 'title', value: (r) => r.title },
];

/** Brand images belong to settings; ad and page images to whoever edits content. */
const UPLOAD_PERMISSION: Record<UploadKind, Permission[]> = {
  logo: ['settings.write'],
  favicon: ['settings.write'],
  cover: ['settings.write'],
  photo: ['content.write', 'settings.write'],
  hero: ['content.write', 'settings.write'],
  image: ['content.write', 'settings.write'],
};

/** Room for the multipart envelope around the file itself. */
const MULTIPART_OVERHEAD = 64 * 1024;

/** The host landing domains must point at (a CNAME to it), from PUBLIC_URL. */
const appHostOf = (publicUrl: string) => new URL(publicUrl).hostname;

/**
 * Content studio under /v1 (SPEC.md §7 "Content under /rest/content, including /pba and
 * /parse_pba_data"; "GET and PUT /rest/client/{id}/settings"), plus landing pages and uploads.
 */
/**
 * A new attribution window recomputes every stored attribution row of the client (minutes for a
 * large one): the background job starts on it now rather than leaving it to the next report.
 */
async function saveSettings(
  app: FastifyInstance,
  request: FastifyRequest,
  body: z.infer<typeof clientSettingsUpdateBody>,
) {
  const clientId = tenantOf(request).clientId;
  const before = await getClientSettings(app.db, clientId);
  const saved = await updateClientSettings(app.db, clientId, body);
  const fields = changedFields(before, body);
  if (fields.length) {
    await auditRequest(app.db, request, {
      action: 'settings.changed',
      target: { kind: 'client_settings', id: clientId },
      details: { fields },
    });
  }
  // The brand, and the landing pages that carry it, on every instance (issue 41 item 5).
  const deps = cacheDepsOf(app);
  await forgetShared(deps, app.db, CACHES.brand, { key: clientId });
  await forgetShared(deps, app.db, CACHES.landingPage, { tag: clientId });
  if (body.attribution_window_days !== undefined) {
    app.queue
      .send(ATTRIBUTION_JOB, {})
      .catch((err: unknown) => app.log.warn({ err }, 'could not queue the attribution refresh'));
  }
  return saved;
}

export const contentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  await app.register(fastifyMultipart, {
    limits: { fileSize: UPLOAD_MAX_BYTES, files: 1, fields: 5, fieldSize: 1024, parts: 10 },
  });

  // --- content ------------------------------------------------------------------------------

  app.get(
    '/rest/content',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'List content items (archived ones only when asked for)',
        querystring: contentListQuery,
        response: { 200: contentListReply },
      },
    },
    async (request) => listContent(db, tenantOf(request).clientId, request.query),
  );

  app.post(
    '/rest/content',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Create a content item (an ad creative with its landing page payload)',
        description:
          'Text fields are plain text (stored escaped, SPEC.md §5); HTML fields are sanitised. ' +
          'A published item needs a title, image text and a landing page, URL or landing HTML.',
        body: contentCreateBody,
        response: { 201: contentItemSchema, ...errors },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createContent(db, tenantOf(request).clientId, request.body)),
  );

  app.post(
    '/rest/content/pba',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary:
          "People-based ads: a cohort of a CSV list's usable people (`csv`, `name`); or a content item's " +
          'texts with its data-id tags filled in (`content_id`)',
        description:
          'With `csv` (a list of people with a header row, as read by parse_pba_data) and `name`: a ' +
          'cohort (source csv) of its usable rows, each found among the prospects by e-mail or by name ' +
          'and company, or made; its members get ad tags through the same engine. Needs cohort.write; ' +
          '201 with the cohort. `content_id` is the content its ads show.\n\n' +
          'With `content_id` alone: values from the content assignee, then the target’s rep and prospect ' +
          '(prospect_*), then `values`; a tag without a value is emptied (SPEC.md §5).',
        body: pbaBody,
        response: { 200: pbaReply, 201: pbaCohortReply, ...errors },
      },
    },
    async (request, reply) => {
      const clientId = tenantOf(request).clientId;
      const body = request.body;
      if (body.csv !== undefined) {
        requirePermission(request, 'cohort.write');
        const made = await app.campaigns.createPeopleCohort(clientId, authOf(request).user.id, {
          name: body.name ?? '',
          csv: body.csv,
          content_id: body.content_id,
        });
        return reply.code(201).send(made);
      }
      const item = await getContent(db, clientId, body.content_id ?? '').catch((err: unknown) => {
        if ((err as { statusCode?: number }).statusCode === 404) {
          throw fieldError('body.content_id', 'is not a content item of this client');
        }
        throw err;
      });
      const values = await personalisationValues(db, clientId, item, {
        targetId: body.target_id,
        values: body.values,
      });
      return { content_id: item.id, values, ...personaliseContent(item, values) };
    },
  );

  app.post(
    '/rest/content/parse_pba_data',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary:
          'Which rows of a list of people (`csv`) are usable for people-based ads; or the data-id tags a `text` holds',
        description:
          `\`csv\`: CSV text with a header row naming the columns (email; first_name, last_name or name; ` +
          `company; title), at most ${PBA_MAX_ROWS} people and ${PBA_CSV_MAX_CHARS} characters. A row is ` +
          'usable with a valid e-mail, or a first and last name with a company; every other row says why ' +
          'not. Needs cohort.write. `?format=csv` answers the rows as a CSV file (cells that a spreadsheet ' +
          'would run as formulas are quoted).\n\n`text`: the data-id tags it holds.',
        querystring: parsePbaQuery,
        body: parsePbaBody,
        response: { 200: z.union([parsePbaReply, pbaPeopleReply, z.string()]), 422: errorReply },
      },
    },
    async (request, reply) => {
      const { csv, text } = request.body;
      if (csv !== undefined) {
        requirePermission(request, 'cohort.write');
        const read = app.campaigns.parsePeople(csv);
        if (request.query.format === 'csv') {
          return sendCsv(reply, 'people-check.csv', PEOPLE_CSV_COLUMNS, read.rows);
        }
        return read;
      }
      const counts = new Map<string, number>();
      for (const id of findDataIds(text ?? '')) counts.set(id, (counts.get(id) ?? 0) + 1);
      return {
        tags: [...counts].map(([id, count]) => {
          const known = PERSONALISATION_TAGS.find((t) => t.id === id);
          return { id, label: known?.label ?? null, source: known?.source ?? null, count };
        }),
      };
    },
  );

  app.get(
    '/rest/content/:id',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'One content item',
        params: contentParams,
        response: { 200: contentItemSchema, 404: errorReply },
      },
    },
    async (request) => getContent(db, tenantOf(request).clientId, request.params.id),
  );

  app.patch(
    '/rest/content/:id',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Change a content item: fields, draft ↔ published, archive ↔ unarchive',
        body: contentUpdateBody,
        params: contentParams,
        response: { 200: contentItemSchema, ...errors },
      },
    },
    async (request) => updateContent(db, tenantOf(request).clientId, request.params.id, request.body),
  );

  app.delete(
    '/rest/content/:id',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Delete a content item (409 while a cadence day uses it: archive it instead)',
        params: contentParams,
        response: { 204: z.null(), 404: errorReply, 409: errorReply },
      },
    },
    async (request, reply) => {
      await deleteContent(db, tenantOf(request).clientId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  // --- landing pages --------------------------------------------------------------------------

  app.get(
    '/rest/client/:clientId/landing_page',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: "The client's landing pages",
        params: clientParams,
        querystring: archivedQuery,
        response: { 200: landingPageListReply },
      },
    },
    async (request) => listLandingPages(db, tenantOf(request).clientId, request.query.archived),
  );

  app.post(
    '/rest/client/:clientId/landing_page',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Create a landing page (HTML fields sanitised; public at /lp/{base58 of id})',
        params: clientParams,
        body: landingPageCreateBody,
        response: { 201: landingPageSchema, 422: errorReply },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await createLandingPage(db, tenantOf(request).clientId, request.body)),
  );

  app.get(
    '/rest/client/:clientId/landing_page/:id',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'One landing page',
        params: landingParams,
        response: { 200: landingPageSchema, 404: errorReply },
      },
    },
    async (request) => getLandingPage(db, tenantOf(request).clientId, request.params.id),
  );

  app.patch(
    '/rest/client/:clientId/landing_page/:id',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Change a landing page (only the fields given)',
        params: landingParams,
        body: landingPageUpdateBody,
        response: { 200: landingPageSchema, ...errors },
      },
    },
    async (request) => updateLandingPage(db, tenantOf(request).clientId, request.params.id, request.body),
  );

  app.delete(
    '/rest/client/:clientId/landing_page/:id',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Delete a landing page (409 while content links to it)',
        params: landingParams,
        response: { 204: z.null(), 404: errorReply, 409: errorReply },
      },
    },
    async (request, reply) => {
      await deleteLandingPage(db, tenantOf(request).clientId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  // --- client settings ------------------------------------------------------------------------

  app.get(
    '/rest/client/:clientId/settings',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'Client (brand) settings; defaults while none are saved',
        params: clientParams,
        response: { 200: clientSettingsSchema },
      },
    },
    async (request) => getClientSettings(db, tenantOf(request).clientId),
  );

  app.put(
    '/rest/client/:clientId/settings',
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Save client (brand) settings: only the fields given change',
        params: clientParams,
        body: clientSettingsUpdateBody,
        response: { 200: clientSettingsSchema, 422: errorReply },
      },
    },
    async (request) => saveSettings(app, request, request.body),
  );

  // --- uploads ----------------------------------------------------------------------------

  app.get(
    '/rest/client/:clientId/uploads',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: "The client's uploaded images, newest first",
        params: clientParams,
        querystring: uploadListQuery,
        response: { 200: uploadListReply },
      },
    },
    async (request) => listUploads(db, tenantOf(request).clientId, request.query.kind),
  );

  app.post(
    '/rest/client/:clientId/uploads',
    {
      // The permission depends on the kind: settings.write for logo, favicon and cover; content.write
      // or settings.write for photo, hero and image.
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'Upload an image (multipart/form-data: a "file" part and a "kind" field)',
        description:
          'Checked by its bytes: PNG, JPEG, GIF or WebP (never SVG), at most 5 MB, within the ' +
          'dimensions of its kind. Served publicly at the reply’s url (/files/{id}).',
        params: clientParams,
        querystring: z.object({ kind: uploadKindSchema.optional() }),
        response: { 201: uploadReply, 403: errorReply, 413: errorReply, 415: errorReply, 422: errorReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const canWrite = tenant.permissions.some((p) => p === 'content.write' || p === 'settings.write');
      if (!canWrite) {
        throw httpError(403, 'Access Denied: your role has neither content.write nor settings.write.');
      }
      if (!request.isMultipart()) {
        throw httpError(415, 'Send the image as multipart/form-data, in a part named "file".');
      }
      const megabytes = UPLOAD_MAX_BYTES / (1024 * 1024);
      const tooLarge = () =>
        fieldError('body.file', `is larger than ${megabytes} MB; upload a smaller image`);
      if (Number(request.headers['content-length']) > UPLOAD_MAX_BYTES + MULTIPART_OVERHEAD) {
        throw tooLarge();
      }
      let kind: unknown = request.query.kind;
      let bytes: Buffer | undefined;
      try {
        for await (const part of request.parts()) {
          if (part.type === 'field') {
            if (part.fieldname === 'kind') kind = part.value;
          } else if (part.fieldname === 'file' && !bytes) {
            bytes = await part.toBuffer();
          } else {
            part.file.resume();
          }
        }
      } catch (err) {
        const code = (err as { code?: string }).code;
        if (code === 'FST_REQ_FILE_TOO_LARGE') throw tooLarge();
        if (code === 'FST_FILES_LIMIT') throw fieldError('body.file', 'send one file at a time');
        throw multipartProblem(err);
      }
      const parsedKind = uploadKindSchema.safeParse(kind ?? 'image');
      if (!parsedKind.success) {
        throw fieldError('body.kind', parsedKind.error.issues[0]?.message ?? 'is invalid');
      }
      const needs = UPLOAD_PERMISSION[parsedKind.data];
      if (!needs.some((p) => tenant.permissions.includes(p))) {
        throw httpError(
          403,
          `Access Denied: uploading a ${parsedKind.data} needs the ${needs.join(' or ')} permission.`,
        );
      }
      if (!bytes) throw fieldError('body.file', 'is required: attach the image in a part named "file"');
      const saved = await saveUpload(db, blobStoreOf(app), {
        clientId: tenant.clientId,
        userId: authOf(request).user.id,
        kind: parsedKind.data,
        bytes,
      });
      return reply.code(201).send(saved);
    },
  );
};

/**
 * Content and settings calls of the cadence service (SPEC.md §7 "Cadence service (/sc)": "Content:
 * GET, PUT, DELETE /content[/{id}]"; "GET and PUT /settings; GET, PUT, DELETE
 * /client/{id}/landing_domain").
 */
export const scContentRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;
  const appHost = appHostOf(config.publicUrl);
  // DNS_SERVERS picks the resolvers (tests run one on loopback).
  const resolver = createResolver(config.dnsServers);

  app.get(
    '/content',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'List content items (filters: archived, status, template_id, search)',
        querystring: contentListQuery,
        response: { 200: contentListReply },
      },
    },
    async (request) => listContent(db, tenantOf(request).clientId, request.query),
  );

  app.get(
    '/content/:id',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'One content item',
        params: contentParams,
        response: { 200: contentItemSchema, 404: errorReply },
      },
    },
    async (request) => getContent(db, tenantOf(request).clientId, request.params.id),
  );

  app.put(
    '/content/:id',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Change a content item (the fields given): publish, archive, edit',
        description: 'Create with POST /v1/rest/content.',
        params: contentParams,
        body: contentUpdateBody,
        response: { 200: contentItemSchema, ...errors },
      },
    },
    async (request) => updateContent(db, tenantOf(request).clientId, request.params.id, request.body),
  );

  app.delete(
    '/content/:id',
    {
      config: CONTENT_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Delete a content item (409 while a cadence day uses it: archive it instead)',
        params: contentParams,
        response: { 204: z.null(), 404: errorReply, 409: errorReply },
      },
    },
    async (request, reply) => {
      await deleteContent(db, tenantOf(request).clientId, request.params.id);
      return reply.code(204).send(null);
    },
  );

  app.get(
    '/settings',
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'Client settings of the x-client-id client (as GET /v1/rest/client/{id}/settings)',
        response: { 200: clientSettingsSchema },
      },
    },
    async (request) => getClientSettings(db, tenantOf(request).clientId),
  );

  app.put(
    '/settings',
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['content'],
        summary: 'Save client settings of the x-client-id client (only the fields given change)',
        body: clientSettingsUpdateBody,
        response: { 200: clientSettingsSchema, 422: errorReply },
      },
    },
    async (request) => saveSettings(app, request, request.body),
  );

  const domainPath = '/client/:clientId/landing_domain';
  // Which client a host serves, as cached by the page routes: forgotten everywhere after a change
  // (rare, and the old and new hosts both matter).
  const forgettingDomains = async <T>(change: Promise<T>): Promise<T> => {
    const done = await change;
    await forgetShared(cacheDepsOf(app), app.db, CACHES.landingDomain, { all: true });
    return done;
  };
  const landing = { db, appHost, holdDays: app.config.landingDomainHoldDays };
  app.get(
    domainPath,
    {
      config: READ,
      schema: {
        tags: ['content'],
        summary: 'The landing page domain, the DNS record to create for it, and whether it is verified',
        params: clientParams,
        response: { 200: landingDomainReply },
      },
    },
    async (request) => getLandingDomain(landing, tenantOf(request).clientId),
  );

  app.put(
    domainPath,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['content'],
        summary:
          'Set the landing page domain (lower-cased; unverified until a check finds its CNAME and TXT records); 409 while another client has it verified or reserved',
        params: clientParams,
        body: landingDomainBody,
        response: { 200: landingDomainReply, 409: errorReply, 422: errorReply },
      },
    },
    async (request) =>
      forgettingDomains(setLandingDomain(landing, tenantOf(request).clientId, request.body.domain)),
  );

  app.delete(
    domainPath,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['content'],
        summary:
          'Stop serving landing pages on the custom domain (a verified one stays reserved to the client for LANDING_DOMAIN_HOLD_DAYS)',
        params: clientParams,
        response: { 200: landingDomainReply },
      },
    },
    async (request) => forgettingDomains(removeLandingDomain(landing, tenantOf(request).clientId)),
  );

  app.post(
    `${domainPath}/check`,
    {
      config: SETTINGS_WRITE,
      schema: {
        tags: ['content'],
        summary:
          'Resolve the domain now; verified when it has the client’s TXT token at _rally.<domain> and is a CNAME to us (or has our addresses)',
        params: clientParams,
        response: { 200: landingDomainCheckReply, 404: errorReply, 409: errorReply, 503: errorReply },
      },
    },
    async (request) =>
      forgettingDomains(checkLandingDomain({ ...landing, resolver }, tenantOf(request).clientId)),
  );
};

/**
 * Uploaded images at /files/{id}, outside the API bases: public (they show on landing pages and in
 * ads), on our host and on landing domains alike. Ids are random and files never change.
 */
export const filesRoutes: FastifyPluginAsyncZod = async (app) => {
  app.get(
    '/files/:id',
    {
      config: { access: 'public' },
      schema: { hide: true, params: z.object({ id: z.string() }) },
    },
    async (request, reply) => {
      const { id } = request.params;
      const notFound = () =>
        reply.code(404).header('cache-control', 'no-store').send({ message: 'File not found' });
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(id)) return notFound();
      const etag = `"${id.toLowerCase()}"`;
      const file = await readUpload(app, id.toLowerCase());
      if (!file) return notFound();
      reply
        .header('content-type', file.row.contentType)
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('x-content-type-options', 'nosniff')
        .header('content-disposition', 'inline')
        .header('etag', etag);
      if (request.headers['if-none-match'] === etag) return reply.code(304).send();
      return reply.send(file.bytes);
    },
  );
};
