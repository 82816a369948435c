/**
 * The port every ad-network adapter implements (issue 39, ARCHITECTURE.md §13 "Ad networks",
 * docs/decisions/0025): Meta now; LinkedIn and Google Ads later behind the same shapes. An adapter
 * translates the network's API into these shapes and knows nothing of our database or of whether it
 * talks to the network or to an in-repo fake (only base URLs differ). It shares the sequence and
 * CRM ports' credentials and adapter context (integrations/adapter-context.ts) and their HTTP
 * helper (vendor-http.ts: retries, rate-limit waits, VendorAuthError for a refused token).
 *
 * Members are sent as SHA-256 hashes of normalised e-mails only (hashing.ts); an adapter never
 * sees an address in clear.
 */

import type {
  AdapterContext,
  AuthorizeParams,
  ExchangeParams,
  OAuthCredentials,
} from '../integrations/port.ts';

export type { AdapterContext, AuthorizeParams, ExchangeParams, OAuthCredentials };

export const AD_NETWORKS = ['meta'] as const;
export type AdNetwork = (typeof AD_NETWORKS)[number];

/** An ad account the connected person may advertise from (Meta `act_…`). */
export type RemoteAdAccount = {
  /** The id calls use (Meta: `act_<account_id>`). */
  id: string;
  name: string;
  currency: string | null;
  /** The network says ads can run from it (Meta account_status 1). */
  isActive: boolean;
};

/** A page the ads speak as (Meta: a Facebook page). */
export type RemotePage = { id: string; name: string };

/** What the network says of an audience: its matched size (a lower bound) and whether it is usable. */
export type RemoteAudience = {
  id: string;
  name: string;
  /** Meta approximate_count_lower_bound; null while the network has not counted it yet. */
  matchedLowerBound: number | null;
  matchedUpperBound: number | null;
  /** The network's words when it cannot be used (Meta operation_status/delivery_status), else null. */
  problem: string | null;
};

/** What one members call did (the network's own counts for the batch). */
export type BatchResult = { received: number; invalid: number };

export type AdNetworkAdapter = {
  readonly network: AdNetwork;
  /** People per members call (Meta: 10,000 per request). */
  readonly batchLimit: number;
  /** The smallest matched audience the network will deliver to (Meta: 100). */
  readonly minimumAudience: number;
  authorizeUrl(params: AuthorizeParams): string;
  exchangeCode(params: ExchangeParams): Promise<OAuthCredentials>;
  /**
   * Credentials that expire within `withinMs` traded for fresh ones (Meta has no refresh token: a
   * valid long-lived token is exchanged for a new one); null when nothing needed doing.
   */
  refreshIfDue(ctx: AdapterContext, withinMs: number): Promise<OAuthCredentials | null>;
  /** Revokes Rally's access at the network (best effort; errors are the caller's to log). */
  revoke(ctx: AdapterContext): Promise<void>;
  /** Who we are connected as; also checks the token. */
  whoami(ctx: AdapterContext): Promise<{ name: string }>;
  adAccounts(ctx: AdapterContext): Promise<RemoteAdAccount[]>;
  pages(ctx: AdapterContext): Promise<RemotePage[]>;
  createAudience(
    ctx: AdapterContext,
    adAccountId: string,
    spec: { name: string; description: string },
  ): Promise<{ id: string }>;
  updateAudience(
    ctx: AdapterContext,
    audienceId: string,
    spec: { name: string; description: string },
  ): Promise<void>;
  readAudience(ctx: AdapterContext, audienceId: string): Promise<RemoteAudience>;
  /** Adds hashed members; `hashes.length` ≤ batchLimit. Adding one already there changes nothing. */
  addMembers(ctx: AdapterContext, audienceId: string, hashes: string[]): Promise<BatchResult>;
  /** Removes hashed members; `hashes.length` ≤ batchLimit. */
  removeMembers(ctx: AdapterContext, audienceId: string, hashes: string[]): Promise<BatchResult>;
};
