import {
  bigint,
  boolean,
  date,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import { clients } from './identity.ts';
// Opportunities live here beside the stages, owners and record types they point at, so this file
// depends on integrations.ts and not the other way round (no import cycle).
import { companies, integrations, prospects, salesReps } from './integrations.ts';

/*
 * CRM data (issue 16, ARCHITECTURE.md §10): what the CRM adapters (salesforce, hubspot, marketo)
 * bring in beside the opportunities. Every row carries client_id (the tenant) and, when it comes
 * from a vendor, the integration and the vendor's id, unique together, so syncs upsert idempotently.
 */

const createdUpdated = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

const tenant = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

const integrationRef = () =>
  integer('integration_id')
    .notNull()
    .references(() => integrations.id, { onDelete: 'cascade' });

/**
 * One stage of one pipeline of a CRM (Salesforce OpportunityStage, a HubSpot deal-pipeline stage).
 * `key` is the vendor's value on the opportunity (Salesforce ApiName, HubSpot stage id).
 */
export const crmStages = pgTable(
  'crm_stages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integrationRef(),
    /** The pipeline's vendor id ("default" for Salesforce, which has one per record type at most). */
    pipelineKey: text('pipeline_key').notNull().default('default'),
    pipelineLabel: text('pipeline_label').notNull().default('Default'),
    key: text('key').notNull(),
    label: text('label').notNull(),
    sortOrder: integer('sort_order').notNull().default(0),
    /** Default probability in percent (0–100), when the CRM gives one. */
    probability: integer('probability'),
    isClosed: boolean('is_closed').notNull().default(false),
    isWon: boolean('is_won').notNull().default(false),
    isActive: boolean('is_active').notNull().default(true),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_stages_integration_pipeline_key_uq').on(t.integrationId, t.pipelineKey, t.key),
    index('crm_stages_client_idx').on(t.clientId, t.pipelineKey, t.sortOrder),
  ],
);

/** Salesforce opportunity record types (SobjectType 'Opportunity'). */
export const crmRecordTypes = pgTable(
  'crm_record_types',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integrationRef(),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    developerName: text('developer_name').notNull().default(''),
    sobjectType: text('sobject_type').notNull().default('Opportunity'),
    isActive: boolean('is_active').notNull().default(true),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_record_types_integration_external_uq').on(t.integrationId, t.externalId),
    index('crm_record_types_client_idx').on(t.clientId),
  ],
);

/** A user of the CRM who owns opportunities; mapped to a sales rep by e-mail (or by hand). */
export const crmOwners = pgTable(
  'crm_owners',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integrationRef(),
    externalId: text('external_id').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    email: text('email'),
    isActive: boolean('is_active').notNull().default(true),
    salesRepId: uuid('sales_rep_id').references(() => salesReps.id, { onDelete: 'set null' }),
    /** Set when someone mapped the owner by hand: a sync's e-mail match then leaves it alone. */
    mappedByHand: boolean('mapped_by_hand').notNull().default(false),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_owners_integration_external_uq').on(t.integrationId, t.externalId),
    index('crm_owners_client_email_idx').on(t.clientId, sql`lower(${t.email})`),
  ],
);

/** A CRM account (Salesforce Account, HubSpot company), matched to a Rally company by website domain. */
export const crmAccounts = pgTable(
  'crm_accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integrationRef(),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    website: text('website'),
    /** Lower-cased host without "www.", the match key to companies.website. */
    domain: text('domain'),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    ownerExternalId: text('owner_external_id'),
    /** The vendor's last-modified time (the incremental sync's cursor). */
    crmUpdatedAt: timestamp('crm_updated_at', { withTimezone: true }),
    /** Deleted in the CRM (Salesforce IsDeleted, HubSpot archived): kept, left out of counts. */
    isDeleted: boolean('is_deleted').notNull().default(false),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_accounts_integration_external_uq').on(t.integrationId, t.externalId),
    index('crm_accounts_client_domain_idx').on(t.clientId, t.domain),
    index('crm_accounts_company_idx').on(t.companyId),
  ],
);

/** A CRM contact (or Marketo lead), matched to a prospect by e-mail. */
export const crmContacts = pgTable(
  'crm_contacts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /**
     * The tenant, without a key of its own to clients (migration 0079, issue 43): the row goes with
     * its integration, whose client's deletion removes it; a per-row key check on every first-sync
     * insert bought nothing more. Always the integration's client (store.ts writes `ref.clientId`).
     */
    clientId: uuid('client_id').notNull(),
    /**
     * The integration; this key and `accountId`'s are kept by triggers that check each statement's
     * distinct parents once (migration 0080, issue 43), not by foreign keys that checked and locked
     * the parent once a row: a first sync's batch of 2,000 contacts names one integration and at
     * most 2,000 accounts. Deleting the integration deletes its contacts, as the key's cascade did.
     */
    integrationId: integer('integration_id').notNull(),
    externalId: text('external_id').notNull(),
    email: text('email'),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    title: text('title').notNull().default(''),
    accountExternalId: text('account_external_id'),
    /** The account (kept by triggers, see `integrationId`); null when the account is deleted. */
    accountId: uuid('account_id'),
    prospectId: uuid('prospect_id').references(() => prospects.id, { onDelete: 'set null' }),
    ownerExternalId: text('owner_external_id'),
    crmUpdatedAt: timestamp('crm_updated_at', { withTimezone: true }),
    /** Deleted in the CRM (Salesforce IsDeleted, HubSpot archived): kept, left out of counts. */
    isDeleted: boolean('is_deleted').notNull().default(false),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_contacts_integration_external_uq').on(t.integrationId, t.externalId),
    index('crm_contacts_client_email_idx').on(t.clientId, sql`lower(${t.email})`),
    // Most contacts match no prospect; every lookup is by a prospect (`= id`, ON DELETE SET NULL).
    index('crm_contacts_prospect_idx')
      .on(t.prospectId)
      .where(sql`${t.prospectId} is not null`),
    index('crm_contacts_account_idx').on(t.accountId),
    // The activities phase pages the contacts modified since its cursor (HubSpot), oldest first.
    index('crm_contacts_integration_updated_idx').on(t.integrationId, t.crmUpdatedAt, t.externalId),
  ],
);

/** A stage move of an opportunity (Salesforce OpportunityHistory, HubSpot dealstage history). */
export const opportunityStageHistory = pgTable(
  'opportunity_stage_history',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    opportunityId: uuid('opportunity_id')
      .notNull()
      .references(() => opportunities.id, { onDelete: 'cascade' }),
    /** The vendor's id of the history row (or a key made of time and value), unique per opportunity. */
    externalId: text('external_id').notNull(),
    /** Null for the first entry (the opportunity was created in `to`). */
    fromStageId: uuid('from_stage_id').references(() => crmStages.id, { onDelete: 'set null' }),
    toStageId: uuid('to_stage_id').references(() => crmStages.id, { onDelete: 'set null' }),
    /** The vendor's stage values as given, kept when the stage is not (or no longer) in the catalogue. */
    fromStage: text('from_stage'),
    toStage: text('to_stage').notNull(),
    changedAt: timestamp('changed_at', { withTimezone: true }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('opportunity_stage_history_opp_external_uq').on(t.opportunityId, t.externalId),
    // Reports: moves of a client in a period, and into a stage.
    index('opportunity_stage_history_client_changed_idx').on(t.clientId, t.changedAt),
    index('opportunity_stage_history_to_stage_idx').on(t.toStageId, t.changedAt),
  ],
);

/** Salesforce OpportunityContactRole, HubSpot deal↔contact associations. */
export const opportunityContacts = pgTable(
  'opportunity_contacts',
  {
    clientId: tenant(),
    opportunityId: uuid('opportunity_id')
      .notNull()
      .references(() => opportunities.id, { onDelete: 'cascade' }),
    contactId: uuid('contact_id')
      .notNull()
      .references(() => crmContacts.id, { onDelete: 'cascade' }),
    role: text('role').notNull().default(''),
    isPrimary: boolean('is_primary').notNull().default(false),
  },
  (t) => [
    primaryKey({ columns: [t.opportunityId, t.contactId] }),
    index('opportunity_contacts_contact_idx').on(t.contactId),
  ],
);

export const CRM_LIST_KINDS = ['campaign', 'list', 'static_list'] as const;
export const CRM_LIST_MEMBER_TYPES = ['contact', 'lead', 'account'] as const;

/** A Salesforce campaign, HubSpot list or Marketo static list: the source of a cohort. */
export const crmLists = pgTable(
  'crm_lists',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integrationRef(),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    kind: text('kind', { enum: CRM_LIST_KINDS }).notNull(),
    /** What the members are (HubSpot objectTypeId 0-1 contacts, 0-2 companies; Marketo leads). */
    memberType: text('member_type', { enum: CRM_LIST_MEMBER_TYPES }).notNull().default('contact'),
    memberCount: integer('member_count').notNull().default(0),
    isActive: boolean('is_active').notNull().default(true),
    crmUpdatedAt: timestamp('crm_updated_at', { withTimezone: true }),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_lists_integration_external_uq').on(t.integrationId, t.externalId),
    index('crm_lists_client_name_idx').on(t.clientId, sql`lower(${t.name})`, t.id),
  ],
);

/** A member of a CRM list, with the contact or account it resolved to (if synced). */
export const crmListMembers = pgTable(
  'crm_list_members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    /** The tenant, without a key to clients: the row goes with its list (as crm_contacts, 0079). */
    clientId: uuid('client_id').notNull(),
    /**
     * The list; this key and `contactId`'s are kept by triggers that check each statement's distinct
     * parents once (migration 0080, issue 43), not by foreign keys that checked and locked the
     * parent once a row: a batch's 2,000 members are all of one list. Deleting the list deletes its
     * members, as the key's cascade did.
     */
    listId: uuid('list_id').notNull(),
    memberExternalId: text('member_external_id').notNull(),
    /** The contact (kept by triggers, see `listId`); null when the contact is deleted. */
    contactId: uuid('contact_id'),
    accountId: uuid('account_id').references(() => crmAccounts.id, { onDelete: 'set null' }),
    /** Salesforce CampaignMember status; empty elsewhere. */
    status: text('status').notNull().default(''),
    addedAt: timestamp('added_at', { withTimezone: true }),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_list_members_list_member_uq').on(t.listId, t.memberExternalId),
    index('crm_list_members_contact_idx').on(t.contactId),
  ],
);

/**
 * How many activities of each CRM type (Salesforce Task/Event subtype, HubSpot engagement type) a
 * contact has, for the outreach and meeting-activity definitions. `activityType` is the vendor's.
 */
export const crmActivityCounts = pgTable(
  'crm_activity_counts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integrationRef(),
    contactExternalId: text('contact_external_id').notNull(),
    contactId: uuid('contact_id').references(() => crmContacts.id, { onDelete: 'set null' }),
    activityType: text('activity_type').notNull(),
    count: integer('count').notNull().default(0),
    lastActivityAt: timestamp('last_activity_at', { withTimezone: true }),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('crm_activity_counts_integration_contact_type_uq').on(
      t.integrationId,
      t.contactExternalId,
      t.activityType,
    ),
    index('crm_activity_counts_client_type_idx').on(t.clientId, t.activityType),
    index('crm_activity_counts_contact_idx').on(t.contactId),
  ],
);

/** Per client: the stages reports count (selected) and those that mean value (valuable). */
export const crmClientSettings = pgTable('crm_client_settings', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  /** crm_stages ids, in the order chosen. */
  selectedStageIds: jsonb('selected_stage_ids').$type<string[]>().notNull().default([]),
  valuableStageIds: jsonb('valuable_stage_ids').$type<string[]>().notNull().default([]),
  ...createdUpdated,
});

/**
 * Per CRM connection: which of its activity types count as sales outreach and which as meetings,
 * the write-back switch (off by default) and the sync's own settings.
 */
export const crmIntegrationSettings = pgTable(
  'crm_integration_settings',
  {
    integrationId: integer('integration_id')
      .primaryKey()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    clientId: tenant(),
    outreachActivityTypes: jsonb('outreach_activity_types').$type<string[]>().notNull().default([]),
    meetingActivityTypes: jsonb('meeting_activity_types').$type<string[]>().notNull().default([]),
    writeBack: boolean('write_back').notNull().default(false),
    /** Salesforce: the Rally campaign written back to; HubSpot: the properties created. */
    writeBackTarget: text('write_back_target'),
    ...createdUpdated,
  },
  (t) => [index('crm_integration_settings_client_idx').on(t.clientId)],
);

/** An opportunity (revenue import or CRM): amount in cents, stage, close date, account. */
export const opportunities = pgTable(
  'opportunities',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: tenant(),
    integrationId: integer('integration_id')
      .notNull()
      .references(() => integrations.id, { onDelete: 'cascade' }),
    externalId: text('external_id').notNull(),
    name: text('name').notNull(),
    accountName: text('account_name').notNull(),
    companyId: uuid('company_id').references(() => companies.id, { onDelete: 'set null' }),
    amountCents: bigint('amount_cents', { mode: 'number' }).notNull(),
    currency: text('currency').notNull().default('USD'),
    stage: text('stage').notNull(),
    closeDate: date('close_date'),
    // CRM fields (issue 16); a file import leaves them empty, the CRM syncs and the demo fill them.
    /** The stage in the client's catalogue (crm_stages); `stage` keeps the vendor's value as given. */
    stageId: uuid('stage_id').references(() => crmStages.id, { onDelete: 'set null' }),
    /** When the opportunity was created in the CRM (attribution's "generated" moment). */
    crmCreatedAt: timestamp('crm_created_at', { withTimezone: true }),
    /** The vendor's last-modified time (the incremental sync's cursor). */
    crmUpdatedAt: timestamp('crm_updated_at', { withTimezone: true }),
    isClosed: boolean('is_closed').notNull().default(false),
    isWon: boolean('is_won').notNull().default(false),
    /** Percent, 0–100. */
    probability: integer('probability'),
    ownerId: uuid('owner_id').references(() => crmOwners.id, { onDelete: 'set null' }),
    recordTypeId: uuid('record_type_id').references(() => crmRecordTypes.id, { onDelete: 'set null' }),
    /** The CRM account's id (Salesforce AccountId, HubSpot company id); companyId is its Rally company. */
    accountExternalId: text('account_external_id'),
    /** Deleted in the CRM (Salesforce IsDeleted, HubSpot archived): kept for history, left out of reports. */
    isDeleted: boolean('is_deleted').notNull().default(false),
    ...createdUpdated,
  },
  (t) => [
    uniqueIndex('opportunities_integration_external_uq').on(t.integrationId, t.externalId),
    index('opportunities_client_idx').on(t.clientId),
    // Reports: opportunities created in a period, per stage.
    index('opportunities_client_created_idx').on(t.clientId, t.crmCreatedAt),
    // Reports: the client's main currency (the most common among its live opportunities), counted
    // from this index alone (57 → 11 ms over 100,000 opportunities; a table scan before).
    index('opportunities_client_currency_idx')
      .on(t.clientId, t.currency)
      .where(sql`not ${t.isDeleted}`),
    // Also `opportunities_client_open_idx` (client_id) INCLUDE (company_id, amount_cents, id, currency)
    // for the open live ones, in migration 0081 only (pipeline/priority's ranking, dashboard/stats' open
    // pipeline): Drizzle cannot express INCLUDE.
    index('opportunities_stage_idx').on(t.stageId),
    index('opportunities_company_idx').on(t.companyId),
  ],
);
