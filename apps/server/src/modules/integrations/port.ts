/**
 * The port every sequence-platform adapter implements (ARCHITECTURE.md §7). Adapters translate the
 * vendor's API into these shapes; the sync engine (sync.ts) stores them. An adapter knows nothing of
 * our database, and nothing of whether it talks to the vendor or to an in-repo fake: only the base
 * URLs differ.
 */

import type { SequenceSourceName } from '@rally/shared/schemas/integrations';
import type { AdFieldsPort } from './ad-fields-port.ts';
import type { AdapterContext, OAuthCredentials } from './adapter-context.ts';

// Credentials and the adapter context live in adapter-context.ts (the ad-fields port uses them too).
export type {
  AdapterContext,
  ApiKeyCredentials,
  ClientCredentials,
  Credentials,
  OAuthCredentials,
} from './adapter-context.ts';

export { SEQUENCE_SOURCES } from '@rally/shared/schemas/integrations';
export type SequenceSource = SequenceSourceName;

/** A user of the platform: becomes a sales rep (SPEC.md §3 "Sales rep"). */
export type RemoteUser = {
  externalId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  title: string;
  isActive: boolean;
  updatedAt: string | null;
};

/** A cadence/sequence with the day numbers its steps fall on (SPEC.md §3 "Cadence", "Cadence day"). */
export type RemoteCadence = {
  externalId: string;
  name: string;
  status: 'draft' | 'active' | 'paused' | 'finished';
  ownerExternalId: string | null;
  /** Distinct day numbers (1-based) of the cadence's steps, ascending. */
  days: number[];
  updatedAt: string;
};

export type RemoteCompany = { externalId: string; name: string; website: string | null };

export type RemoteProspect = {
  externalId: string;
  firstName: string;
  lastName: string;
  email: string | null;
  title: string;
  company: RemoteCompany | null;
  updatedAt: string | null;
  /**
   * The platform's own opt-out for the person (Salesloft `do_not_contact`, Outreach `optedOut`):
   * the sync puts the address on the client's suppression list (issue 44).
   */
  optedOut?: boolean;
};

/** A prospect's place in a cadence: becomes a target on its current day. */
export type RemoteMembership = {
  externalId: string;
  cadenceExternalId: string;
  prospect: RemoteProspect;
  /** The rep working the prospect in this cadence (the ad's assignee). */
  userExternalId: string | null;
  /** Current day (1-based) in the cadence. */
  dayNumber: number;
  /** Still on the cadence (not finished, removed, bounced…). */
  isActive: boolean;
  /** The platform has reached out at least once. */
  contacted: boolean;
  updatedAt: string;
};

/**
 * One page of a listing; `totalPages` when the vendor tells (drives the progress bar). `fullPass`
 * (memberships): this page ends a read of every membership begun at that time (ISO); the engine
 * stores it once the page is stored and hands it back as `lastFullPass`.
 */
export type Page<T> = { items: T[]; totalPages: number | null; fullPass?: string };

export type AuthorizeParams = {
  state: string;
  redirectUri: string;
  /** Salesforce: the login host chosen for this connection (default: the configured one). */
  loginUrl?: string;
  /** PKCE (RFC 7636): the S256 challenge of the verifier the callback will send. */
  codeChallenge?: string;
};
/** The callback's code exchange; `loginUrl` and `codeVerifier` as in AuthorizeParams. */
export type ExchangeParams = { code: string; redirectUri: string; loginUrl?: string; codeVerifier?: string };

export type SequenceAdapter = {
  readonly source: SequenceSource;
  readonly auth: 'oauth' | 'api_key';
  /** OAuth: the vendor's authorization URL for the authorization-code flow. */
  authorizeUrl?(params: AuthorizeParams): string;
  /** OAuth: trades the callback's code for tokens. */
  exchangeCode?(params: ExchangeParams): Promise<OAuthCredentials>;
  /**
   * Who we are connected as (the account name shown on the connections screen); checks credentials.
   * `accessNote`: what this connection cannot see (e.g. a non-admin's narrower view), in words for
   * the user; shown on the connection.
   */
  whoami(ctx: AdapterContext): Promise<{ accountName: string; accessNote?: string | null }>;
  /** Users updated after `since` (null: all), oldest first. */
  users(ctx: AdapterContext, since: string | null): AsyncIterable<Page<RemoteUser>>;
  /** Cadences updated after `since` (null: all), oldest first, with their step days. */
  cadences(ctx: AdapterContext, since: string | null): AsyncIterable<Page<RemoteCadence>>;
  /**
   * Memberships updated after `since` (null: all), oldest first, each with its prospect; limited to
   * one cadence when `cadenceExternalId` is given (a "sync now" of one cadence). `lastFullPass`: when
   * the last read of every membership began (a vendor whose update times miss some changes reads
   * everything again now and then; see Page.fullPass).
   */
  memberships(
    ctx: AdapterContext,
    since: string | null,
    opts?: { cadenceExternalId?: string; lastFullPass?: string | null },
  ): AsyncIterable<Page<RemoteMembership>>;
  /** Writes each target's ad and click URLs into person fields (issue 38; modules/ad-fields). */
  adFields?: AdFieldsPort;
};
