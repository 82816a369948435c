import { z } from 'zod';
import { integrationSchema } from './auth.ts';
import { pageQueryFields } from './common.ts';

/** Sources connected through the CRM port (SPEC.md §1 "CRM type", and Marketo). */
export const CRM_SOURCES = ['salesforce', 'hubspot', 'marketo'] as const;
export type CrmSourceName = (typeof CRM_SOURCES)[number];

export const crmSourceParam = z.enum(CRM_SOURCES, { message: `must be one of ${CRM_SOURCES.join(', ')}` });

const integrationIdQuery = z.coerce
  .number()
  .int('must be an integration id')
  .positive('must be an integration id')
  .max(2_147_483_647, 'must be an integration id');

/** One stage of a CRM pipeline (`GET /rest/client/{id}/crm/opportunity/stage`). */
export const crmStageSchema = z.object({
  id: z.uuid(),
  integration_id: z.number().int(),
  source: z.string(),
  pipeline_key: z.string(),
  pipeline_label: z.string(),
  key: z.string(),
  label: z.string(),
  order: z.number().int(),
  /** Percent, 0–100; null when the CRM gives none. */
  probability: z.number().int().nullable(),
  is_closed: z.boolean(),
  is_won: z.boolean(),
  is_active: z.boolean(),
});
export type CrmStage = z.infer<typeof crmStageSchema>;

export const crmStageQuery = z.object({
  integration_id: integrationIdQuery.optional(),
  pipeline: z.string().trim().min(1, 'must name a pipeline').max(200).optional(),
});

/** `GET /rest/client/{id}/crm/record_type`. */
export const crmRecordTypeSchema = z.object({
  id: z.uuid(),
  integration_id: z.number().int(),
  source: z.string(),
  external_id: z.string(),
  name: z.string(),
  developer_name: z.string(),
  is_active: z.boolean(),
});
export type CrmRecordType = z.infer<typeof crmRecordTypeSchema>;

/** `GET`/`PUT /rest/client/{id}/opportunity/selected_stages` and `/pipeline/stages/valuable`. */
export const stageSelectionBody = z.object({
  stage_ids: z.array(z.uuid('must be the id (UUID) of a stage')).max(500, 'must name at most 500 stages'),
});
export const stageSelectionReply = z.object({
  stage_ids: z.array(z.uuid()),
  stages: z.array(crmStageSchema),
});
export type StageSelection = z.infer<typeof stageSelectionReply>;

export const CRM_LIST_KIND_VALUES = ['campaign', 'list', 'static_list'] as const;

/** `GET /rest/crm_list`: Salesforce campaigns, HubSpot lists, Marketo static lists of the client. */
export const crmListSchema = z.object({
  id: z.uuid(),
  integration_id: z.number().int(),
  source: z.string(),
  external_id: z.string(),
  name: z.string(),
  kind: z.enum(CRM_LIST_KIND_VALUES),
  member_type: z.enum(['contact', 'lead', 'account']),
  member_count: z.number().int(),
  is_active: z.boolean(),
  updated_at: z.iso.datetime({ offset: true }),
});
export type CrmList = z.infer<typeof crmListSchema>;

export const crmListQuery = z.object({
  integration_id: integrationIdQuery.optional(),
  source: crmSourceParam.optional(),
  search: z.string().trim().max(200, 'must be at most 200 characters').optional(),
  ...pageQueryFields,
});
export const crmListPage = z.object({
  items: z.array(crmListSchema),
  total: z.number().int(),
  page: z.number().int(),
  page_size: z.number().int(),
});
export type CrmListPage = z.infer<typeof crmListPage>;

/** `GET /integration/crm/{source}/client/{id}/redirect`: where the browser goes to consent. */
/** Where a Salesforce org logs in: login.salesforce.com, test.salesforce.com or its My Domain. */
export const SALESFORCE_LOGINS = ['production', 'sandbox', 'my_domain'] as const;
export type SalesforceLogin = (typeof SALESFORCE_LOGINS)[number];
export const crmRedirectQuery = z.object({
  /** Where the browser lands after the vendor's consent screen. */
  return_to: z
    .enum(['integration', 'connections'], { message: 'must be integration or connections' })
    .default('integration'),
  /**
   * Salesforce: where the org logs in — production (login.salesforce.com), a sandbox
   * (test.salesforce.com) or the org's My Domain (`my_domain`, https://<name>.my.salesforce.com).
   */
  login: z
    .enum(SALESFORCE_LOGINS, { message: 'must be production, sandbox or my_domain' })
    .default('production'),
  my_domain: z.string().max(255, 'must be at most 255 characters').optional(),
});
export const crmRedirectReply = z.object({ redirect_url: z.url() });

const activityTypes = z
  .array(z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'))
  .max(100, 'must name at most 100 activity types');

/** `GET/POST /integration/crm/{source}/client/{id}/settings`. */
export const crmSettingsSchema = z.object({
  source: z.enum(CRM_SOURCES),
  /** Null while the client never connected this CRM. */
  integration: integrationSchema.nullable(),
  write_back: z.boolean(),
  outreach_activity_types: z.array(z.string()),
  meeting_activity_types: z.array(z.string()),
  counts: z.object({
    stages: z.number().int(),
    owners: z.number().int(),
    accounts: z.number().int(),
    contacts: z.number().int(),
    opportunities: z.number().int(),
    lists: z.number().int(),
  }),
});
export type CrmSettings = z.infer<typeof crmSettingsSchema>;

export const crmSettingsBody = z
  .object({
    write_back: z.boolean(),
    outreach_activity_types: activityTypes,
    meeting_activity_types: activityTypes,
    /** Start a sync now (also what "Sync now" sends). */
    sync_now: z.boolean(),
  })
  .partial();

/** `GET /integration/crm/{source}/client/{id}/owners/active`. */
export const crmOwnerSchema = z.object({
  id: z.uuid(),
  external_id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string().nullable(),
  sales_rep_id: z.uuid().nullable(),
  mapped_by_hand: z.boolean(),
});
export type CrmOwner = z.infer<typeof crmOwnerSchema>;

/** `GET /integration/crm/{source}/client/{id}/fields`. */
export const crmFieldsQuery = z.object({
  object: z
    .enum(['opportunity', 'contact'], { message: 'must be opportunity or contact' })
    .default('opportunity'),
});
export const crmFieldSchema = z.object({
  name: z.string(),
  label: z.string(),
  type: z.string(),
  options: z.array(z.object({ value: z.string(), label: z.string() })),
});
export type CrmField = z.infer<typeof crmFieldSchema>;

/**
 * `GET/PUT /integration/crm/{source}/client/{id}/outreach` and `/meeting_activity`: which of the CRM's
 * activity types count as sales outreach, and which as meetings.
 */
export const activityDefinitionBody = z.object({ activity_types: activityTypes });
export const activityDefinitionReply = z.object({
  activity_types: z.array(z.string()),
  /** The activity types synced from the CRM, with how many contacts have one and how many in all. */
  available: z.array(z.object({ type: z.string(), contacts: z.number().int(), total: z.number().int() })),
});
export type ActivityDefinition = z.infer<typeof activityDefinitionReply>;

/** `PUT /integration/crm/{source}/client/{id}/owners/{ownerId}`: map an owner to a sales rep by hand. */
export const mapOwnerBody = z.object({
  sales_rep_id: z.uuid('must be the id (UUID) of a sales rep').nullable(),
});

/** `POST /integration/crm/{source}/client/{id}/audience/estimate`. */
export const audienceEstimateBody = z.object({
  list_ids: z
    .array(z.uuid('must be the id (UUID) of a CRM list'))
    .min(1, 'must name at least one list')
    .max(100, 'must name at most 100 lists'),
});
export const audienceEstimateReply = z.object({
  /** Distinct contacts (or leads) in the lists. */
  contacts: z.number().int(),
  /** Distinct accounts: those listed, and those of the listed contacts. */
  accounts: z.number().int(),
  /** Contacts that are prospects in Rally already (matched by e-mail). */
  prospects: z.number().int(),
  /** Accounts matched to Rally companies (by website domain). */
  companies: z.number().int(),
});
export type AudienceEstimate = z.infer<typeof audienceEstimateReply>;

/** `POST /integration/crm/marketo/client/{id}/connection`: the API user's credentials (Admin › LaunchPoint). */
export const marketoConnectionBody = z.object({
  client_id: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  client_secret: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters'),
  /** Admin › Web Services › REST API endpoint, like https://123-ABC-456.mktorest.com/rest. */
  rest_base_url: z
    .url({
      protocol: /^https?$/,
      message: 'must be an http(s) URL like https://123-ABC-456.mktorest.com/rest',
    })
    .max(300, 'must be at most 300 characters'),
});
export type MarketoConnectionBody = z.infer<typeof marketoConnectionBody>;

/** `GET/POST /integration/crm/marketo/client/{id}/connection`: what is stored (never the secret). */
export const marketoConnectionReply = z.object({
  source: z.literal('marketo'),
  /** The REST base URL and the client id's last characters, while credentials are stored. */
  rest_base_url: z.string().nullable(),
  client_id_hint: z.string().nullable(),
  integration: integrationSchema.nullable(),
});
export type MarketoConnection = z.infer<typeof marketoConnectionReply>;
