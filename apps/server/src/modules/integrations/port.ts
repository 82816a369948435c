/**
 * The port every sequence-platform adapter implements (ARCHITECTURE.md §7). Adapters translate the
 * vendor's API into these shapes; the sync engine (sync.ts) stores them. An adapter knows nothing of
 * our database, and nothing of whether it talks to the vendor or to an in-repo fake: only the base
 * URLs differ.
 */

import type { SequenceSourceName } from '@rally/shared/schemas/integrations';
import type { AdFieldsPort } from './ad-fields-port.ts';

export { SEQUENCE_SOURCES } from '@rally/shared/schemas/integrations';
export type SequenceSource = SequenceSourceName;

export type OAuthCredentials = {
  kind: 'oauth';
  accessToken: string;
  refreshToken: string | null;
  /** ISO time the access token expires; null when the vendor did not say. */
  expiresAt: string | null;
  /** Salesforce: the org's API host from the token reply (every API call goes there). */
  instanceUrl?: string | null;
  /** Salesforce: the login host the owner chose (sandbox, My Domain); refresh and revoke go there. */
  loginUrl?: string | null;
};
export type ApiKeyCredentials = { kind: 'api_key'; apiKey: string };
/**
 * Marketo (API-NOTES.md §6): client id and secret of the instance's API user and its REST base URL;
 * the access token is asked for again with them when it expires (there is no refresh token).
 */
export type ClientCredentials = {
  kind: 'client_credentials';
  clientId: string;
  clientSecret: string;
  baseUrl: string;
  accessToken: string | null;
  expiresAt: string | null;
};
export type Credentials = OAuthCredentials | ApiKeyCredentials | ClientCredentials;

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

/** One page of a listing; `totalPages` when the vendor tells (drives the progress bar). */
export type Page<T> = { items: T[]; totalPages: number | null };

/** What the sync engine hands an adapter for each call. */
export type AdapterContext = {
  /** The current credentials (after any refresh). */
  credentials(): Credentials;
  /**
   * Called by the adapter after it refreshed an OAuth token; the engine seals and stores the new
   * credentials before the adapter goes on (vendors rotate refresh tokens: keep the newest).
   */
  saveCredentials(next: Credentials): Promise<void>;
  /**
   * The stored credentials as they are now. Another sync (or server) may have refreshed and rotated
   * the tokens meanwhile; a refused refresh first checks here before calling the access revoked.
   */
  reloadCredentials?(): Promise<Credentials | null>;
  signal?: AbortSignal;
  /**
   * A user is waiting for the answer (connecting an account): no retries and a short time limit per
   * request, so a vendor that cannot be reached is reported at once (VendorUnreachableError).
   */
  interactive?: boolean;
};

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
   * one cadence when `cadenceExternalId` is given (a "sync now" of one cadence).
   */
  memberships(
    ctx: AdapterContext,
    since: string | null,
    opts?: { cadenceExternalId?: string },
  ): AsyncIterable<Page<RemoteMembership>>;
  /** Writes each target's ad and click URLs into person fields (issue 38; modules/ad-fields). */
  adFields?: AdFieldsPort;
};
