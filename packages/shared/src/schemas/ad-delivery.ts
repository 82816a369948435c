import { z } from 'zod';

/**
 * Ads in the cadence's own e-mails (issue 38, ARCHITECTURE.md §13): Rally writes each target's ad
 * image URL and click URL into two fields on the person record of the platform that sends the
 * e-mails, and the SDR's template holds that platform's merge fields inside an `<a><img></a>` snippet.
 * This file is the contract between the write-back (server) and the "Add ads to your e-mails" step
 * (web): one settings row per connected integration of these sources.
 */
export const AD_FIELD_SOURCES = [
  'salesloft',
  'outreach',
  'apolloio',
  'hubspot',
  'salesforce',
  'marketo',
] as const;
export type AdFieldSource = (typeof AD_FIELD_SOURCES)[number];

/** Where a write-back stands, in words the connection screen and the cadence step can show. */
export const AD_FIELDS_STATUSES = ['not_set_up', 'ready', 'writing', 'paused', 'error'] as const;
export type AdFieldsStatus = (typeof AD_FIELDS_STATUSES)[number];

const fieldName = z.string().trim().min(1, 'must name a field').max(200, 'must be at most 200 characters');

/** One field of the vendor's person record that can hold a URL (for the owner to pick). */
export const vendorFieldSchema = z.object({
  /** The vendor's API name or key (what is written and what the merge field uses). */
  name: z.string(),
  /** The vendor's display label. */
  label: z.string(),
  /** Salesforce only: the object the field is on (`Contact` or `Lead`); null elsewhere. */
  object: z.string().nullable(),
});
export type VendorField = z.infer<typeof vendorFieldSchema>;

/** `GET /v1/rest/client/{clientId}/ad_fields` lists one of these per eligible integration. */
export const adFieldsSettingsSchema = z.object({
  integration_id: z.number().int(),
  source: z.enum(AD_FIELD_SOURCES),
  /** Vendor field names (API names); null until the owner picks or Rally creates them. */
  image_field: z.string().nullable(),
  click_field: z.string().nullable(),
  /** Writing is on (the owner turned it on and both fields are set). */
  enabled: z.boolean(),
  status: z.enum(AD_FIELDS_STATUSES),
  /** Whether Rally can create the fields through the vendor's API for this connection. */
  can_create_fields: z.boolean(),
  /** When Rally cannot create them: exactly what the owner must create in the vendor, in plain words. */
  instructions: z.string().nullable(),
  /** Person records whose two fields hold a target's URLs now. */
  targets_written: z.number().int(),
  /** Person records still to write (new targets, targets that left, fields changed), as last counted. */
  targets_pending: z.number().int(),
  /** Person records the vendor refused one by one (deleted there, say); tried again when they change. */
  targets_failed: z.number().int(),
  last_written_at: z.iso.datetime({ offset: true }).nullable(),
  /** The last failure in plain words (rate limit, missing field, revoked access), or null. */
  last_error: z.string().nullable(),
});
export type AdFieldsSettings = z.infer<typeof adFieldsSettingsSchema>;
export const adFieldsListReply = z.object({ items: z.array(adFieldsSettingsSchema) });

/** `PUT /v1/rest/client/{clientId}/ad_fields/{integrationId}` (owner or admin: integration.write). */
export const adFieldsBody = z.object({
  image_field: fieldName,
  click_field: fieldName,
  enabled: z.boolean(),
});
export type AdFieldsBody = z.infer<typeof adFieldsBody>;

/**
 * `POST /v1/rest/client/{clientId}/ad_fields/{integrationId}/create` (integration.write; no body):
 * Rally creates the two fields where the vendor's API allows, sets them on the connection and turns
 * writing on, and answers the settings row; where it cannot, 422 with `instructions`.
 */
export const adFieldsCreateError = z.object({
  message: z.string(),
  /** What the owner creates in the vendor instead (absent on a malformed request). */
  instructions: z.string().optional(),
  /** A malformed request's fields (`params.integrationId`…), as every 422 names them. */
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

/** `GET /v1/rest/client/{clientId}/ad_fields/{integrationId}/available`: fields that can hold a URL. */
export const availableFieldsReply = z.object({ items: z.array(vendorFieldSchema) });
