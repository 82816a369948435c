import { z } from 'zod';
import { cohortSchema } from './cohorts.ts';

/**
 * Campaigns and the people-based (CSV) flow (issue 18, SPEC.md §7 "Campaigns: POST and PATCH
 * /rest/campaign[/{id}]", "GET /download/{id} (binary)", "Content under /rest/content, including
 * /pba and /parse_pba_data"; docs/decisions/0009-campaigns-and-people-based-cohorts.md).
 *
 * A campaign is a cohort's flight on an ad network: first and last day (inclusive), a status and
 * the content whose ads it runs. `GET /v1/download/{id}` gives a zip of those ads as PNGs at the
 * four sizes, to upload to the network.
 */
export const CAMPAIGN_STATUSES = ['draft', 'active', 'paused', 'ended'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const CAMPAIGN_STATUS_LABELS: Record<CampaignStatus, string> = {
  draft: 'Draft',
  active: 'Active',
  paused: 'Paused',
  ended: 'Ended',
};
export const CAMPAIGN_NAME_MAX = 120;
export const CAMPAIGN_PAGE_SIZE_MAX = 100;

const uuid = (what: string) => z.uuid({ error: `must be the id (UUID) of ${what}` });

const ISO_DAY = /^\d{4}-\d{2}-\d{2}$/;
/** A calendar day as YYYY-MM-DD, a real date between 2000 and 2099. */
export const campaignDay = z.string({ error: 'must be a date (YYYY-MM-DD)' }).refine(
  (v) => {
    if (!ISO_DAY.test(v)) return false;
    const d = new Date(`${v}T00:00:00Z`);
    return (
      !Number.isNaN(d.getTime()) &&
      d.toISOString().slice(0, 10) === v &&
      v >= '2000-01-01' &&
      v < '2100-01-01'
    );
  },
  { error: 'must be a date (YYYY-MM-DD) between 2000 and 2099' },
);

const name = z
  .string({ error: 'is required' })
  .trim()
  .min(1, 'is required')
  .max(CAMPAIGN_NAME_MAX, `must be at most ${CAMPAIGN_NAME_MAX} characters`)
  .refine((v) => !v.includes('\u0000'), { error: 'must not contain NUL characters' });
const status = z.enum(CAMPAIGN_STATUSES, { error: `must be one of ${CAMPAIGN_STATUSES.join(', ')}` });

/** `POST /v1/rest/campaign`. Content defaults to the cohort's; status to draft. */
export const campaignCreateBody = z
  .object({
    cohort_id: uuid('a cohort'),
    name,
    starts_on: campaignDay,
    ends_on: campaignDay,
    status: status.default('draft'),
    content_id: uuid('a content item').nullable().optional(),
  })
  .strict()
  .superRefine((b, ctx) => {
    if (b.ends_on <= b.starts_on) {
      ctx.addIssue({ code: 'custom', path: ['ends_on'], message: 'must be after starts_on' });
    }
  });
export type CampaignCreateBody = z.input<typeof campaignCreateBody>;

/** `PATCH /v1/rest/campaign/{id}`: fields left out keep their value. */
export const campaignUpdateBody = z
  .object({
    name: name.optional(),
    starts_on: campaignDay.optional(),
    ends_on: campaignDay.optional(),
    status: status.optional(),
    content_id: uuid('a content item').nullable().optional(),
  })
  .strict();
export type CampaignUpdateBody = z.input<typeof campaignUpdateBody>;

export const campaignIdParam = z.object({ id: uuid('a campaign') });

export const campaignListQuery = z.object({
  cohort_id: uuid('a cohort').optional(),
  page: z.coerce.number().int('must be a whole number').min(1, 'must be 1 or more').max(100_000).default(1),
  page_size: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be 1 or more')
    .max(CAMPAIGN_PAGE_SIZE_MAX, `must be at most ${CAMPAIGN_PAGE_SIZE_MAX}`)
    .default(25),
});
export type CampaignListQuery = z.input<typeof campaignListQuery>;

export const campaignSchema = z.object({
  id: z.uuid(),
  client_id: z.uuid(),
  cohort_id: z.uuid(),
  cohort_name: z.string(),
  name: z.string(),
  status: z.enum(CAMPAIGN_STATUSES),
  starts_on: z.string(),
  ends_on: z.string(),
  /** Active and today (UTC) within the flight. */
  live: z.boolean(),
  content_id: z.uuid().nullable(),
  content_name: z.string().nullable(),
  /** The zip of the ads (`GET /v1/download/{id}`); null while the campaign has no content. */
  download_url: z.string().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type Campaign = z.infer<typeof campaignSchema>;

export const campaignListReply = z.object({
  items: z.array(campaignSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type CampaignListReply = z.infer<typeof campaignListReply>;

export const downloadIdParam = z.object({ id: uuid('a campaign or export file') });

// ---------------------------------------------------------------------------------------------
// People-based ads: a CSV of people becomes a cohort

/** The CSV travels as text in JSON (the browser reads the file); the request body limit is 1 MiB. */
export const PBA_CSV_MAX_CHARS = 800_000;
export const PBA_MAX_ROWS = 5_000;
export const PBA_FIELD_MAX = 200;
export const PBA_FIELDS = ['email', 'first_name', 'last_name', 'company', 'title'] as const;
export type PbaField = (typeof PBA_FIELDS)[number];

export const pbaCsvSchema = z
  .string({ error: 'must be the text of a CSV file' })
  .min(1, 'must be the text of a CSV file with a header row')
  .max(PBA_CSV_MAX_CHARS, `must be at most ${PBA_CSV_MAX_CHARS} characters (split the list)`)
  .refine((v) => !v.includes('\u0000'), { error: 'must not contain NUL characters' });

/** One row of the list as read: its fields, whether it can carry an ad tag, and why not. */
export const pbaRowSchema = z.object({
  /** 1 = the first row after the header (line 2 of the file). */
  row: z.number().int(),
  usable: z.boolean(),
  /** How it is matched to a person: by e-mail, or by first and last name with company. */
  match: z.enum(['email', 'name_company']).nullable(),
  reasons: z.array(z.string()),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  company: z.string(),
  title: z.string(),
});
export type PbaRow = z.infer<typeof pbaRowSchema>;

/** `POST /v1/rest/content/parse_pba_data` with `csv`: which rows are usable. */
export const pbaPeopleReply = z.object({
  total: z.number().int(),
  usable: z.number().int(),
  unusable: z.number().int(),
  /** Which header each field was read from (null: no such column). */
  columns: z.record(z.enum(PBA_FIELDS), z.string().nullable()),
  /** Headers that were not read. */
  ignored_columns: z.array(z.string()),
  rows: z.array(pbaRowSchema),
});
export type PbaPeopleReply = z.infer<typeof pbaPeopleReply>;

/** `POST /v1/rest/content/pba` with `csv`: the cohort made for the usable rows. */
export const pbaCohortReply = z.object({
  cohort: cohortSchema,
  members: z.number().int(),
  skipped: z.number().int(),
});
export type PbaCohortReply = z.infer<typeof pbaCohortReply>;
