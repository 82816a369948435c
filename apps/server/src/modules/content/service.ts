import { and, desc, eq, ilike, or, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { z } from 'zod';
import { unescapeHtml } from '@rally/shared';
import { ASSIGNEE_FIELDS } from '@rally/shared/schemas/content';
import type {
  ContentItem,
  LandingPage,
  LandingPagePayload,
  contentCreateBody,
  contentListQuery,
  contentUpdateBody,
  landingPageCreateBody,
  landingPageUpdateBody,
} from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import {
  cadenceDays,
  cadences,
  companies,
  content,
  landingPages,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';
import { FieldError, httpError, oneRow } from '../../lib/errors.ts';
import type { FieldProblem } from '../../lib/errors.ts';
import {
  assigneeToStored,
  escapeText,
  normaliseColors,
  payloadToStored,
  toContentItem,
  toLandingPage,
} from './text.ts';
import { getClientSettings } from './settings.ts';

type CreateBody = z.output<typeof contentCreateBody>;
type UpdateBody = z.output<typeof contentUpdateBody>;
type ListQuery = z.output<typeof contentListQuery>;
type ContentRow = typeof content.$inferSelect;
type ContentInsert = typeof content.$inferInsert;

const NOT_FOUND = 'Content not found';
const LP_NOT_FOUND = 'Landing page not found';

const escapeLike = (v: string) => v.replace(/[\\%_]/g, (c) => `\\${c}`);

export async function listContent(db: Db, clientId: string, q: ListQuery) {
  const where: SQL[] = [eq(content.clientId, clientId)];
  if (q.archived === 'false') where.push(eq(content.isArchived, false));
  if (q.archived === 'only') where.push(eq(content.isArchived, true));
  if (q.status) where.push(eq(content.status, q.status));
  if (q.template_id) where.push(eq(content.templateId, q.template_id));
  if (q.search) {
    // Stored text is escaped, so the search term is escaped the same way before matching.
    const term = `%${escapeLike(escapeText(q.search))}%`;
    const match = or(ilike(content.name, term), ilike(content.title, term), ilike(content.imageText, term));
    if (match) where.push(match);
  }
  const rows = await db
    .select()
    .from(content)
    .where(and(...where))
    .orderBy(desc(sql`coalesce(${content.updatedAt}, ${content.createdAt})`), desc(content.id));
  return { items: rows.map(toContentItem), total: rows.length };
}

async function contentRow(db: Db, clientId: string, id: string): Promise<ContentRow> {
  const [row] = await db
    .select()
    .from(content)
    .where(and(eq(content.clientId, clientId), eq(content.id, id)));
  if (!row) throw httpError(404, NOT_FOUND);
  return row;
}

export async function getContent(db: Db, clientId: string, id: string): Promise<ContentItem> {
  return toContentItem(await contentRow(db, clientId, id));
}

/**
 * What a published ad cannot go without: the texts its templates print and somewhere for a click to
 * land (a landing page, a URL, or landing HTML of its own).
 */
function publishProblems(row: ContentInsert): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const payload = row.landingPagePayload;
  if (!row.title?.trim()) problems.push({ field: 'body.title', message: 'is required to publish' });
  if (!row.imageText?.trim()) {
    problems.push({ field: 'body.image_text', message: 'is required to publish' });
  }
  const hasLanding =
    Boolean(row.landingPageId) ||
    Boolean(row.landingPageUrl) ||
    Boolean(payload.hero_html || payload.content_html);
  if (!hasLanding) {
    problems.push({
      field: 'body.landing_page_id',
      message: 'is required to publish: choose a landing page, a landing page URL or write landing content',
    });
  }
  return problems;
}

async function checkLandingPage(db: Db, clientId: string, landingPageId: string | null | undefined) {
  if (!landingPageId) return;
  const [lp] = await db
    .select({ id: landingPages.id })
    .from(landingPages)
    .where(and(eq(landingPages.clientId, clientId), eq(landingPages.id, landingPageId)));
  if (!lp)
    throw new FieldError([
      { field: 'body.landing_page_id', message: 'is not a landing page of this client' },
    ]);
}

/** The stored (escaped, sanitised, normalised) form of the fields a body sets. */
function storedFields(body: Partial<CreateBody>): Partial<ContentInsert> {
  const out: Partial<ContentInsert> = {};
  if (body.name !== undefined)
    out.name = body.name === null || body.name === '' ? null : escapeText(body.name);
  if (body.status !== undefined) out.status = body.status;
  if (body.is_archived !== undefined) out.isArchived = body.is_archived;
  if (body.template_id !== undefined) out.templateId = body.template_id;
  if (body.title !== undefined) out.title = escapeText(body.title);
  if (body.image_text !== undefined) out.imageText = escapeText(body.image_text);
  if (body.primary_text !== undefined) out.primaryText = escapeText(body.primary_text);
  if (body.sdr_img_url !== undefined) out.sdrImgUrl = body.sdr_img_url;
  if (body.colors !== undefined) out.colors = normaliseColors(body.colors);
  if (body.assignee !== undefined) out.assignee = assigneeToStored(body.assignee);
  if (body.landing_page_payload !== undefined) {
    out.landingPagePayload = payloadToStored(body.landing_page_payload);
  }
  if (body.landing_page_url !== undefined) out.landingPageUrl = body.landing_page_url;
  if (body.landing_page_id !== undefined) out.landingPageId = body.landing_page_id;
  return out;
}

export async function createContent(db: Db, clientId: string, body: CreateBody): Promise<ContentItem> {
  await checkLandingPage(db, clientId, body.landing_page_id);
  const values = { ...storedFields(body), clientId } as ContentInsert;
  // A new ad starts in the client's brand colours unless it names its own (issue 42 item 14).
  if (body.colors === undefined) values.colors = (await getClientSettings(db, clientId)).colors;
  if (values.status === 'published') {
    const problems = publishProblems(values);
    if (problems.length) throw new FieldError(problems);
  }
  const row = oneRow(await db.insert(content).values(values).returning());
  return toContentItem(row);
}

/**
 * Changes the given fields. draft ↔ published and archive ↔ unarchive are free, but the result
 * must be complete when published (422 naming what is missing).
 */
export async function updateContent(
  db: Db,
  clientId: string,
  id: string,
  body: UpdateBody,
): Promise<ContentItem> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(content)
      .where(and(eq(content.clientId, clientId), eq(content.id, id)))
      .for('update');
    if (!row) throw httpError(404, NOT_FOUND);
    if (body.updated_at !== undefined) {
      const stored = row.updatedAt?.getTime() ?? null;
      const given = body.updated_at === null ? null : new Date(body.updated_at).getTime();
      if (stored !== given) {
        throw httpError(
          409,
          'This content was changed by someone else since you opened it. Reload it to see their changes.',
        );
      }
    }
    await checkLandingPage(tx, clientId, body.landing_page_id);
    const { updated_at: _u, ...fields } = body;
    const set = storedFields(fields);
    const next = { ...row, ...set } as ContentInsert;
    if (next.status === 'published') {
      const problems = publishProblems(next);
      if (problems.length) throw new FieldError(problems);
    }
    const updated = oneRow(
      await tx
        .update(content)
        .set({ ...set, updatedAt: new Date() })
        .where(and(eq(content.clientId, clientId), eq(content.id, id)))
        .returning(),
    );
    return toContentItem(updated);
  });
}

/** Removes a content item, unless a cadence day shows it (409: archive it instead). */
export async function deleteContent(db: Db, clientId: string, id: string): Promise<void> {
  await contentRow(db, clientId, id);
  const used = await db
    .select({ name: cadences.name, day: cadenceDays.dayNumber })
    .from(cadenceDays)
    .innerJoin(cadences, eq(cadences.id, cadenceDays.cadenceId))
    .where(
      and(
        eq(cadenceDays.clientId, clientId),
        sql`${cadenceDays.contentDays} @> ${JSON.stringify([{ content_id: id }])}::jsonb`,
      ),
    )
    .limit(3);
  if (used.length) {
    const where = used.map((u) => `${u.name} (day ${u.day})`).join(', ');
    throw httpError(409, `This content is used by ${where}. Remove it from there, or archive it instead.`);
  }
  await db.delete(content).where(and(eq(content.clientId, clientId), eq(content.id, id)));
}

// ---------------------------------------------------------------------------------------------
// Personalisation values

export type PersonalisationValues = Record<string, string>;

/**
 * The values of the data-id tags for a content item (SPEC.md §5): the item's assignee, then, for a
 * target, its rep (as assignee) and its prospect (prospect_*), then explicit values, later winning.
 */
export async function personalisationValues(
  db: Db,
  clientId: string,
  item: ContentItem,
  opts: { targetId?: string; values?: Record<string, string> } = {},
): Promise<PersonalisationValues> {
  const values: PersonalisationValues = {};
  if (item.assignee) for (const f of ASSIGNEE_FIELDS) if (item.assignee[f]) values[f] = item.assignee[f];
  if (opts.targetId) {
    const [t] = await db
      .select({
        prospectFirst: prospects.firstName,
        prospectLast: prospects.lastName,
        prospectTitle: prospects.title,
        company: companies.name,
        repFirst: salesReps.firstName,
        repLast: salesReps.lastName,
        repTitle: salesReps.title,
        repCompany: salesReps.companyName,
        repCalendar: salesReps.calendarUrl,
      })
      .from(targets)
      .innerJoin(prospects, eq(prospects.id, targets.prospectId))
      .leftJoin(companies, eq(companies.id, prospects.companyId))
      .leftJoin(salesReps, eq(salesReps.id, targets.salesRepId))
      .where(and(eq(targets.clientId, clientId), eq(targets.id, opts.targetId)));
    if (!t) throw new FieldError([{ field: 'body.target_id', message: 'is not a target of this client' }]);
    const set = (key: string, v: string | null | undefined) => {
      if (v) values[key] = v;
    };
    set('first_name', t.repFirst);
    set('last_name', t.repLast);
    set('title', t.repTitle);
    set('company_name', t.repCompany);
    set('calendar_url', t.repCalendar);
    set('prospect_first_name', t.prospectFirst);
    set('prospect_last_name', t.prospectLast);
    set('prospect_title', t.prospectTitle);
    set('prospect_company_name', t.company);
  }
  return { ...values, ...opts.values };
}

// ---------------------------------------------------------------------------------------------
// Landing pages

type LpCreate = z.output<typeof landingPageCreateBody>;
type LpUpdate = z.output<typeof landingPageUpdateBody>;
type LpInsert = typeof landingPages.$inferInsert;

function storedLandingFields(body: Partial<LpCreate>): Partial<LpInsert> {
  const out: Partial<LpInsert> = {};
  if (body.name !== undefined) out.name = escapeText(body.name);
  if (body.landing_page_payload !== undefined) {
    out.landingPagePayload = payloadToStored(body.landing_page_payload) satisfies LandingPagePayload;
  }
  if (body.sdr_img_url !== undefined) out.sdrImgUrl = body.sdr_img_url;
  if (body.logo_url !== undefined) out.logoUrl = body.logo_url;
  if (body.favicon_url !== undefined) out.faviconUrl = body.favicon_url;
  if (body.colors !== undefined) out.colors = normaliseColors(body.colors);
  if (body.assignee !== undefined) out.assignee = assigneeToStored(body.assignee);
  if (body.is_archived !== undefined) out.isArchived = body.is_archived;
  return out;
}

export async function listLandingPages(db: Db, clientId: string, archived: 'false' | 'true' | 'only') {
  const where: SQL[] = [eq(landingPages.clientId, clientId)];
  if (archived === 'false') where.push(eq(landingPages.isArchived, false));
  if (archived === 'only') where.push(eq(landingPages.isArchived, true));
  const rows = await db
    .select()
    .from(landingPages)
    .where(and(...where))
    .orderBy(desc(landingPages.updatedAt), desc(landingPages.id));
  return { items: rows.map(toLandingPage) };
}

export async function getLandingPage(db: Db, clientId: string, id: string): Promise<LandingPage> {
  const [row] = await db
    .select()
    .from(landingPages)
    .where(and(eq(landingPages.clientId, clientId), eq(landingPages.id, id)));
  if (!row) throw httpError(404, LP_NOT_FOUND);
  return toLandingPage(row);
}

export async function createLandingPage(db: Db, clientId: string, body: LpCreate): Promise<LandingPage> {
  const values = { ...storedLandingFields(body), clientId } as LpInsert;
  // A new page starts with the client's brand colours and logo unless it names its own (issue 42 item 14).
  if (body.colors === undefined || body.logo_url === undefined) {
    const brand = await getClientSettings(db, clientId);
    if (body.colors === undefined) values.colors = brand.colors;
    if (body.logo_url === undefined) values.logoUrl = brand.logo_url;
  }
  return toLandingPage(oneRow(await db.insert(landingPages).values(values).returning()));
}

export async function updateLandingPage(
  db: Db,
  clientId: string,
  id: string,
  body: LpUpdate,
): Promise<LandingPage> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .select()
      .from(landingPages)
      .where(and(eq(landingPages.clientId, clientId), eq(landingPages.id, id)))
      .for('update');
    if (!row) throw httpError(404, LP_NOT_FOUND);
    if (body.updated_at !== undefined && row.updatedAt.getTime() !== new Date(body.updated_at).getTime()) {
      throw httpError(
        409,
        'This landing page was changed by someone else since you opened it. Reload it to see their changes.',
      );
    }
    const { updated_at: _u, ...fields } = body;
    const updated = oneRow(
      await tx
        .update(landingPages)
        .set({ ...storedLandingFields(fields), updatedAt: new Date() })
        .where(and(eq(landingPages.clientId, clientId), eq(landingPages.id, id)))
        .returning(),
    );
    return toLandingPage(updated);
  });
}

/** Removes a landing page, unless content still sends clicks to it (409 naming that content). */
export async function deleteLandingPage(db: Db, clientId: string, id: string): Promise<void> {
  await getLandingPage(db, clientId, id);
  const users = await db
    .select({ name: content.name, title: content.title })
    .from(content)
    .where(and(eq(content.clientId, clientId), eq(content.landingPageId, id)))
    .limit(3);
  if (users.length) {
    const names = users.map((u) => `"${unescapeHtml(u.name ?? u.title)}"`).join(', ');
    throw httpError(409, `This landing page is used by ${names}. Choose another landing page there first.`);
  }
  await db.delete(landingPages).where(and(eq(landingPages.clientId, clientId), eq(landingPages.id, id)));
}
