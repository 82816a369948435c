/**
 * The credentials an adapter holds and the context the sync engine hands it on each call: shared by
 * the sequence and CRM ports and the ad-fields port, so none of them import each other.
 */

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
  /** Marketo: over the daily quota (607) until this time; no call is made before it. */
  quotaResetAt?: string | null;
};
export type Credentials = OAuthCredentials | ApiKeyCredentials | ClientCredentials;

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
  /**
   * Something the user should know that did not stop the sync (a record the vendor would not give);
   * the engine shows it on the connection once the sync ends, and the memberships cursor stays put
   * so the next sync reads again what was left out.
   */
  warn?(message: string): void;
  /**
   * The vendor's API budget as last stored on the connection (Salesforce: calls in the last 24 hours
   * against the org's allocation): an adapter that paces by it may stop before its first call.
   */
  apiUsage?: { used: number; max: number; at: string } | null;
  /** The vendor told how much of its API budget is used (read from a reply): kept on the connection. */
  reportUsage?(usage: { used: number; max: number }): void;
};
