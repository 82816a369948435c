/**
 * The port every CRM adapter implements (ARCHITECTURE.md §7, §10): Salesforce, HubSpot and Marketo.
 * It sits beside the sequence port (modules/integrations/port.ts) and shares its credentials,
 * adapter context and HTTP helper (vendor-http.ts: retries, backoff, rate-limit waits, one OAuth
 * refresh on a 401 or on what `classify` calls an auth failure). An adapter translates the vendor's
 * API into these shapes and knows nothing of our database; the CRM sync (sync.ts) stores them.
 *
 * Conventions for every listing:
 * - `since` is the vendor's modified-since value stored from an earlier sync (ISO time), or null
 *   for everything. Records come oldest-modified first where the vendor can sort, so the sync can
 *   store the newest `updatedAt` of each page as its cursor and resume there after a crash.
 * - Pages follow the vendor's own cursor (Salesforce nextRecordsUrl, HubSpot `after`, Marketo
 *   nextPageToken); `total` is the number of records when the vendor says (the progress bar).
 * - Rate-limit replies are waited out inside the adapter (vendor-http); what is still refused ends
 *   the listing with VendorError, and a refused token with VendorAuthError (the connection becomes
 *   inactive with its message).
 * - A source without a kind of record (HubSpot has no record types, Marketo no opportunities)
 *   leaves the method out.
 */

import type { CrmSourceName } from '@rally/shared/schemas/crm';
import type {
  AdapterContext,
  AuthorizeParams,
  ClientCredentials,
  ExchangeParams,
  Credentials,
  OAuthCredentials,
} from '../integrations/port.ts';
import type { AdFieldsPort } from '../integrations/ad-fields-port.ts';

export { CRM_SOURCES } from '@rally/shared/schemas/crm';
export type CrmSource = CrmSourceName;
export type {
  AdapterContext,
  AuthorizeParams,
  ClientCredentials,
  Credentials,
  ExchangeParams,
  OAuthCredentials,
};

/** One page of a listing. */
export type CrmPage<T> = {
  items: T[];
  total: number | null;
  /**
   * The vendor's time this page brings the listing up to, beyond its items' own times (Marketo: the
   * newest list-membership or lead-change activity read); the phase's cursor moves to it too.
   */
  cursor?: string | null;
};

/** A stage of a pipeline (Salesforce OpportunityStage, a HubSpot deal-pipeline stage). */
export type RemoteStage = {
  /** "default" when the CRM has one pipeline (Salesforce). */
  pipelineKey: string;
  pipelineLabel: string;
  /** The value opportunities carry (Salesforce ApiName, HubSpot stage id). */
  key: string;
  label: string;
  order: number;
  /** Percent 0–100, or null. */
  probability: number | null;
  isClosed: boolean;
  isWon: boolean;
  isActive: boolean;
};

export type RemoteRecordType = {
  externalId: string;
  name: string;
  developerName: string;
  isActive: boolean;
};

/** A CRM user who owns records; mapped to a sales rep by e-mail. */
export type RemoteOwner = {
  externalId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  isActive: boolean;
  updatedAt: string | null;
};

/** Salesforce Account, HubSpot company. */
export type RemoteAccount = {
  externalId: string;
  name: string;
  website: string | null;
  ownerExternalId: string | null;
  updatedAt: string;
  /** Deleted in the CRM (Salesforce queryAll's IsDeleted); a record listed again is live again. */
  isDeleted?: boolean;
};

/** Salesforce Contact or Lead, HubSpot contact, Marketo lead. */
export type RemoteContact = {
  externalId: string;
  email: string | null;
  firstName: string;
  lastName: string;
  title: string;
  accountExternalId: string | null;
  ownerExternalId: string | null;
  updatedAt: string;
  /** Deleted in the CRM (Salesforce queryAll's IsDeleted); a record listed again is live again. */
  isDeleted?: boolean;
  /**
   * The CRM's own e-mail opt-out for the person (HubSpot `hs_email_optout`, Salesforce
   * `HasOptedOutOfEmail`, Marketo `unsubscribed`): the sync puts the address on the client's
   * suppression list (issue 44).
   */
  optedOut?: boolean;
};

export type RemoteContactRole = { contactExternalId: string; role: string; isPrimary: boolean };

/** Salesforce Opportunity, HubSpot deal. */
export type RemoteOpportunity = {
  externalId: string;
  name: string;
  accountExternalId: string | null;
  /** The account's name when the vendor gives it with the opportunity (else looked up). */
  accountName: string | null;
  /** In the currency's major unit (dollars), as the vendor gives it; null when empty. */
  amount: number | null;
  /** ISO 4217; null for the org's default. */
  currency: string | null;
  pipelineKey: string;
  /** The stage's key (RemoteStage.key). */
  stageKey: string;
  /** YYYY-MM-DD. */
  closeDate: string | null;
  createdAt: string;
  updatedAt: string;
  ownerExternalId: string | null;
  recordTypeExternalId: string | null;
  isClosed: boolean;
  isWon: boolean;
  probability: number | null;
  isDeleted: boolean;
  /** When the vendor gives them with the opportunity; otherwise left as they are. */
  contactRoles?: RemoteContactRole[];
};

/** One stage move (Salesforce OpportunityHistory, HubSpot dealstage property history). */
export type RemoteStageChange = {
  /** Unique per opportunity (the history row's id, or time + value). */
  externalId: string;
  opportunityExternalId: string;
  /** Null for the first entry (created in `toStageKey`). */
  fromStageKey: string | null;
  toStageKey: string;
  changedAt: string;
  /** The history row's own time, for the cursor (often equal to changedAt). */
  updatedAt: string;
};

/** Salesforce campaign, HubSpot list, Marketo static list. */
export type RemoteList = {
  externalId: string;
  name: string;
  kind: 'campaign' | 'list' | 'static_list';
  memberType: 'contact' | 'lead' | 'account';
  memberCount: number | null;
  isActive: boolean;
  updatedAt: string | null;
};

export type RemoteListMember = {
  /** The contact's (lead's, account's) external id. */
  memberExternalId: string;
  status: string;
  addedAt: string | null;
};

/**
 * Activity totals of one contact and type ("Call", "Email", "Meeting", "Task"…, the vendor's own
 * names): absolute counts, so storing them twice changes nothing.
 */
export type RemoteActivityCount = {
  contactExternalId: string;
  activityType: string;
  count: number;
  lastActivityAt: string | null;
  /**
   * The vendor's modified time of the change that led to this total (the Task's SystemModstamp, the
   * HubSpot contact's lastmodifieddate): the phase's cursor, in the vendor's clock, not ours.
   */
  changedAt: string | null;
};

/** A field of the CRM's opportunity (or contact) object, for the mapping screens (`/fields`). */
export type RemoteField = {
  name: string;
  label: string;
  type: string;
  /** Picklist values, when the field has them. */
  options: { value: string; label: string }[];
};

/** What Rally writes back to a CRM contact when the connection's write-back is on. */
export type WriteBackItem = {
  contactExternalId: string;
  /** When the prospect first became a superprospect (ISO). */
  superDate: string;
  impressions: number;
  clicks: number;
};

export type CrmAdapter = {
  readonly source: CrmSource;
  /** `oauth`: authorization code (Salesforce, HubSpot); `client_credentials`: Marketo. */
  readonly auth: 'oauth' | 'client_credentials';
  /**
   * Contacts do not come oldest first (Marketo reads them list by list): the contacts cursor moves
   * only once the whole listing is read, so a sync that stops half-way reads it all again.
   */
  readonly contactsUnordered?: boolean;
  /** OAuth: the vendor's consent URL. Throws naming the env variable when the app is not set up. */
  authorizeUrl?(params: AuthorizeParams): string;
  /** OAuth: trades the callback's code for tokens. */
  exchangeCode?(params: ExchangeParams): Promise<OAuthCredentials>;
  /** Client credentials: checks them and gets the first token (Marketo's identity call). */
  connect?(creds: ClientCredentials): Promise<ClientCredentials>;
  /** Revokes the tokens at the vendor on disconnect (best effort: errors are the caller's to log). */
  revoke?(creds: Credentials): Promise<void>;
  /** Who we are connected as (org or portal name); also checks the credentials. */
  whoami(ctx: AdapterContext): Promise<{ accountName: string; opportunityUrlTemplate?: string | null }>;

  stages?(ctx: AdapterContext): Promise<RemoteStage[]>;
  recordTypes?(ctx: AdapterContext): Promise<RemoteRecordType[]>;
  fields?(ctx: AdapterContext, object: 'opportunity' | 'contact'): Promise<RemoteField[]>;
  owners(ctx: AdapterContext, since: string | null): AsyncIterable<CrmPage<RemoteOwner>>;
  accounts?(ctx: AdapterContext, since: string | null): AsyncIterable<CrmPage<RemoteAccount>>;
  /**
   * `known`: which of these external ids Rally already holds as contacts of the connection (Marketo
   * reads the changes of those leads only, not of every lead in the database).
   */
  contacts(
    ctx: AdapterContext,
    since: string | null,
    known?: (externalIds: string[]) => Promise<Set<string>>,
  ): AsyncIterable<CrmPage<RemoteContact>>;
  opportunities?(ctx: AdapterContext, since: string | null): AsyncIterable<CrmPage<RemoteOpportunity>>;
  /**
   * The external ids of opportunities deleted in the CRM that `opportunities` cannot show (HubSpot's
   * search leaves archived deals out; Salesforce's queryAll gives IsDeleted rows, so it has no need).
   * HubSpot reads them whole every sync, without a cursor (listed by id, not time). `since` (a day
   * before the last sync) is for vendors that list deletions by time (Marketo's deleted leads).
   */
  deletedOpportunities?(ctx: AdapterContext, since: string): AsyncIterable<CrmPage<string>>;
  /** The same for accounts (HubSpot companies) and contacts (Marketo leads) the CRM deleted. */
  deletedAccounts?(ctx: AdapterContext, since: string): AsyncIterable<CrmPage<string>>;
  deletedContacts?(ctx: AdapterContext, since: string): AsyncIterable<CrmPage<string>>;
  stageHistory?(ctx: AdapterContext, since: string | null): AsyncIterable<CrmPage<RemoteStageChange>>;
  lists(ctx: AdapterContext, since: string | null): AsyncIterable<CrmPage<RemoteList>>;
  listMembers(ctx: AdapterContext, listExternalId: string): AsyncIterable<CrmPage<RemoteListMember>>;
  /**
   * Writes superprospects back (Salesforce: members of a Rally campaign with the status
   * "Superprospect"; HubSpot: contact properties Rally creates), batched and idempotent: writing
   * the same items again adds nothing. `target` is what an earlier call returned (the campaign id).
   */
  writeBack?(
    ctx: AdapterContext,
    items: WriteBackItem[],
    target: string | null,
  ): Promise<{ target: string; written: number }>;
  /**
   * Totals for every contact with an activity created or changed after `since`. `stored` gives the
   * contacts Rally holds for the connection (this run's contacts phase has just stored them) that
   * were modified at or after a time, oldest first: a vendor whose activities move the contact's
   * modified time (HubSpot) reads the changed contacts there instead of asking the CRM again.
   */
  activityCounts?(
    ctx: AdapterContext,
    since: string | null,
    stored: StoredContacts,
  ): AsyncIterable<CrmPage<RemoteActivityCount>>;
  /** Writes each target's ad and click URLs into contact or lead fields (issue 38; modules/ad-fields). */
  adFields?: AdFieldsPort;
};

/** Pages of the stored, not deleted contacts modified at or after `since` (all when null), oldest first. */
export type StoredContacts = (
  since: string | null,
) => AsyncIterable<CrmPage<{ externalId: string; updatedAt: string }>>;

/** The resources a CRM sync walks, in order; also the keys of its cursor and its progress phases. */
export const CRM_SYNC_PHASES = [
  'stages',
  'owners',
  'accounts',
  'contacts',
  'opportunities',
  'history',
  'lists',
  'activities',
] as const;
export type CrmSyncPhase = (typeof CRM_SYNC_PHASES)[number];
