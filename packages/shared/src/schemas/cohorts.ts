import { z } from 'zod';
import { boundedRangeQuery } from './range.ts';

/**
 * Cohorts (issue 18, SPEC.md §4 and §7 "Cohorts", ARCHITECTURE.md §11): audiences of accounts and
 * their contacts from a CRM list or campaign, a CSV, or filters over Rally's prospects. Active,
 * paused (no ads served or counted, no syncs) or archived (hidden from the list, read-only,
 * restorable to the status it had).
 */
export const COHORT_SOURCE_KINDS = ['crm_list', 'csv', 'filter'] as const;
export type CohortSourceKind = (typeof COHORT_SOURCE_KINDS)[number];
export const COHORT_STATUSES = ['active', 'paused', 'archived'] as const;
export type CohortStatus = (typeof COHORT_STATUSES)[number];
export const COHORT_SYNC_STATES = ['idle', 'queued', 'running', 'done', 'failed'] as const;
export type CohortSyncState = (typeof COHORT_SYNC_STATES)[number];
export const COHORT_ENGAGEMENT_FILTERS = ['engaged', 'not_engaged'] as const;
export const COHORT_SORT_FIELDS = ['name', 'created_at', 'size', 'status', 'last_synced_at'] as const;
export type CohortSortField = (typeof COHORT_SORT_FIELDS)[number];

export const COHORT_STATUS_LABELS: Record<CohortStatus, string> = {
  active: 'Active',
  paused: 'Paused',
  archived: 'Archived',
};
export const COHORT_SOURCE_LABELS: Record<CohortSourceKind, string> = {
  crm_list: 'CRM list',
  csv: 'CSV upload',
  filter: 'Prospect filters',
};
export const COHORT_NAME_MAX = 120;
export const COHORT_PAGE_SIZE_MAX = 100;

const uuid = (what: string) => z.uuid({ error: `must be the id (UUID) of ${what}` });
const bool = (what: string) => z.boolean({ error: `must be true or false (${what})` });

/** Filters over prospects; each one narrows, none means every prospect of the client. */
export const cohortFiltersSchema = z
  .object({
    /** Title contains (case-insensitive). */
    title: z.string().trim().max(200, 'must be at most 200 characters').optional(),
    /** Company name contains (case-insensitive). */
    company: z.string().trim().max(200, 'must be at most 200 characters').optional(),
    /** Only prospects in this cadence. */
    cadence_id: z.number().int('must be a whole number').min(1).max(2_147_483_647).optional(),
    /** true: only superprospects (super in some cadence); false: only those who are not. */
    superprospect: bool('superprospect').optional(),
    /** engaged: at least one impression, click or view in a cadence; not_engaged: none. */
    engagement: z
      .enum(COHORT_ENGAGEMENT_FILTERS, { error: `must be one of ${COHORT_ENGAGEMENT_FILTERS.join(', ')}` })
      .optional(),
  })
  .strict();
export type CohortFilters = z.infer<typeof cohortFiltersSchema>;

const name = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(COHORT_NAME_MAX, `must be at most ${COHORT_NAME_MAX} characters`);

/** Where the members come from: a CRM list (`crm_list_id`) or filters (`filters`). */
const sourceFields = {
  source_kind: z.enum(COHORT_SOURCE_KINDS, { error: `must be one of ${COHORT_SOURCE_KINDS.join(', ')}` }),
  crm_list_id: uuid('a CRM list').optional(),
  filters: cohortFiltersSchema.optional(),
};

function checkSource(
  body: { source_kind: CohortSourceKind; crm_list_id?: string | undefined },
  ctx: z.RefinementCtx,
): void {
  if (body.source_kind === 'crm_list' && !body.crm_list_id) {
    ctx.addIssue({ code: 'custom', path: ['crm_list_id'], message: 'is required for a CRM list cohort' });
  }
  if (body.source_kind === 'csv') {
    ctx.addIssue({
      code: 'custom',
      path: ['source_kind'],
      message: 'csv cohorts come from the people-based upload: POST /rest/content/pba with csv and name',
    });
  }
}

/** `POST /v1/marx/client/{id}/cohort/pre_sync`: the audience a source and filters would give. */
export const cohortPreSyncBody = z.object(sourceFields).superRefine(checkSource);
export type CohortPreSyncBody = z.infer<typeof cohortPreSyncBody>;
export const cohortPreSyncReply = z.object({ contacts: z.number().int(), accounts: z.number().int() });
export type CohortPreSyncReply = z.infer<typeof cohortPreSyncReply>;

/** `POST /v1/rest/cohort`: saves the cohort and queues its first sync. */
export const cohortCreateBody = z
  .object({
    name,
    ...sourceFields,
    /** Published content its members' ads show (day 1 of the cohort's cadence). */
    content_id: uuid('a content item').nullable().optional(),
  })
  .superRefine(checkSource);
export type CohortCreateBody = z.infer<typeof cohortCreateBody>;

/** `PATCH /v1/rest/cohort/{id}`: fields left out keep their value. */
export const cohortUpdateBody = z
  .object({
    name: name.optional(),
    crm_list_id: uuid('a CRM list').optional(),
    filters: cohortFiltersSchema.optional(),
    content_id: uuid('a content item').nullable().optional(),
  })
  .strict();
export type CohortUpdateBody = z.infer<typeof cohortUpdateBody>;

export const cohortArchiveBody = z.object({ archived: bool('archived') });
export const cohortPauseBody = z.object({ paused: bool('paused') });

export const cohortIdParam = z.object({ id: uuid('a cohort') });
export const clientCohortParams = z.object({
  clientId: uuid('a client'),
  id: uuid('a cohort'),
});

const page = z.coerce
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 or more')
  .max(100_000)
  .default(1);
const pageSize = z.coerce
  .number()
  .int('must be a whole number')
  .min(1, 'must be 1 or more')
  .max(COHORT_PAGE_SIZE_MAX, `must be at most ${COHORT_PAGE_SIZE_MAX}`)
  .default(25);

/** `GET /v1/report/client/{id}/cohort` (SPEC.md §7, §9). */
export const cohortListQuery = z.object({
  page,
  page_size: pageSize,
  name: z.string().trim().max(COHORT_NAME_MAX, `must be at most ${COHORT_NAME_MAX} characters`).optional(),
  show_archived: z
    .enum(['true', 'false'], { error: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true'),
  sort_field: z
    .enum(COHORT_SORT_FIELDS, { error: `must be one of ${COHORT_SORT_FIELDS.join(', ')}` })
    .default('created_at'),
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).default('desc'),
});
export type CohortListQuery = z.input<typeof cohortListQuery>;

export const cohortSchema = z.object({
  id: z.uuid(),
  client_id: z.uuid(),
  name: z.string(),
  source_kind: z.enum(COHORT_SOURCE_KINDS),
  crm_list_id: z.uuid().nullable(),
  crm_list_name: z.string().nullable(),
  filters: cohortFiltersSchema,
  status: z.enum(COHORT_STATUSES),
  /** For an archived cohort: the status a restore goes back to. */
  status_before_archive: z.enum(['active', 'paused']).nullable(),
  content_id: z.uuid().nullable(),
  size: z.number().int(),
  accounts: z.number().int(),
  sync_state: z.enum(COHORT_SYNC_STATES),
  sync_progress: z.object({ done: z.number().int(), total: z.number().int().nullable() }).nullable(),
  sync_error: z.string().nullable(),
  last_synced_at: z.iso.datetime().nullable(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  supers: z.number().int(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Cohort = z.infer<typeof cohortSchema>;

export const cohortListReply = z.object({
  items: z.array(cohortSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type CohortListReply = z.infer<typeof cohortListReply>;

/** Columns the members table sorts by (issue 42 item 11); `engagement` is the default. */
export const COHORT_MEMBER_SORTS = [
  'engagement',
  'name',
  'title',
  'company',
  'stage',
  'impressions',
  'clicks',
  'views',
] as const;
export type CohortMemberSort = (typeof COHORT_MEMBER_SORTS)[number];

/** `GET /v1/rest/cohort/{id}/segment`: the members, most engaged first unless `sort` says otherwise. */
export const cohortSegmentQuery = z.object({
  page,
  page_size: pageSize,
  sort: z
    .enum(COHORT_MEMBER_SORTS, { error: `must be one of ${COHORT_MEMBER_SORTS.join(', ')}` })
    .default('engagement'),
  /** Defaults to desc for engagement and the counts, asc for the text columns and the stage. */
  order: z.enum(['asc', 'desc'], { error: 'must be asc or desc' }).optional(),
});
export const cohortMemberSchema = z.object({
  id: z.uuid(),
  prospect_id: z.uuid(),
  target_id: z.uuid(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string().nullable(),
  title: z.string(),
  company_id: z.uuid().nullable(),
  company_name: z.string().nullable(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  super_date: z.iso.datetime().nullable(),
  /** The member's ad tag (`/t/{token}/ad/{size}.png`) and click tag (`/t/{token}/c`). */
  ad_tag: z.string(),
  click_tag: z.string(),
  /** The journey stage of the member's account, when the cohort has a journey. */
  stage: z.object({ id: z.uuid(), name: z.string(), position: z.number().int() }).nullable().optional(),
});
export type CohortMember = z.infer<typeof cohortMemberSchema>;
export const cohortSegmentReply = z.object({
  items: z.array(cohortMemberSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type CohortSegmentReply = z.infer<typeof cohortSegmentReply>;

/** `/v1/report/cohort/{id}/detailed_report`: the cohort's totals. */
export const cohortDetailedReport = z.object({
  id: z.uuid(),
  name: z.string(),
  status: z.enum(COHORT_STATUSES),
  size: z.number().int(),
  accounts: z.number().int(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  supers: z.number().int(),
  engaged_members: z.number().int(),
  engaged_accounts: z.number().int(),
  /** Clicks per impression, 0 when there is none. */
  click_rate: z.number(),
});
export type CohortDetailedReport = z.infer<typeof cohortDetailedReport>;

const audienceRow = z.object({
  label: z.string(),
  members: z.number().int(),
  engaged: z.number().int(),
  impressions: z.number().int(),
  clicks: z.number().int(),
});
/** `/v1/report/cohort/{id}/audience`: members by title and by company (the largest 50 of each). */
export const cohortAudienceReport = z.object({
  by_title: z.array(audienceRow),
  by_company: z.array(audienceRow),
});
export type CohortAudienceReport = z.infer<typeof cohortAudienceReport>;

export const COHORT_IMPACT_MAX_DAYS = 400;
/** `from`/`to` epoch seconds (`to` exclusive); the last 30 days when left out. */
export const cohortImpactQuery = boundedRangeQuery(COHORT_IMPACT_MAX_DAYS);
export const cohortImpactReply = z.object({
  from: z.number().int(),
  to: z.number().int(),
  by_date: z.array(
    z.object({
      date: z.string(),
      impressions: z.number().int(),
      clicks: z.number().int(),
      views: z.number().int(),
    }),
  ),
  total: z.object({ impressions: z.number().int(), clicks: z.number().int(), views: z.number().int() }),
});
export type CohortImpactReply = z.infer<typeof cohortImpactReply>;
