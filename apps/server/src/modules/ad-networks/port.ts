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

export const AD_NETWORKS = ['meta', 'linkedin', 'google'] as const;
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
  /**
   * The network's own e-mail normalisation and hash when it differs from hashing.ts's (Google:
   * Gmail dots and plus suffixes go); members are stored and compared by this hash.
   */
  readonly hashEmail?: (raw: string | null | undefined) => string | null;
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
  /** Campaigns, creatives and launch (decision 0026); absent on a network that cannot run them yet. */
  campaigns?: AdNetworkCampaignApi;
};

// ---------------------------------------------------------------------------------------------
// Campaigns (issue 39 "Creatives and campaigns", decision 0026). Optional on the port: an adapter
// without it cannot run campaigns yet, and the networks that lack it still compile.

/** What a campaign is for, in Rally's words; each adapter maps it to the network's objective. */
export const CAMPAIGN_OBJECTIVES = ['traffic', 'awareness', 'engagement'] as const;
export type CampaignObjective = (typeof CAMPAIGN_OBJECTIVES)[number];

/** Money in the ad account's smallest unit (cents for USD), as the networks take budgets. */
export type CampaignBudget = { kind: 'daily' | 'lifetime'; minor: number };

/** A placement's image size, as the ad renderer draws it. */
export type PlacementSize = '1080x1080' | '1200x628';

export type RemoteAdStatus = {
  id: string;
  /** The network's delivery state (Meta effective_status: ACTIVE, PAUSED, CAMPAIGN_PAUSED, …). */
  effectiveStatus: string;
  /** The network's words on what stops the ad (review, billing…), else null. */
  issues: string | null;
};

/** One ad's results for one day, as the network reports them (issue 39 "Results"). */
export type RemoteDailyStat = {
  /** YYYY-MM-DD in the ad account's time zone. */
  day: string;
  adId: string;
  impressions: number;
  reach: number;
  clicks: number;
  /** In the account currency's minor unit (cents). */
  spendMinor: number;
};

/** One company's engagement with a campaign on one day, as the network reports it. */
export type RemoteCompanyDay = {
  /** YYYY-MM-DD in the ad account's time zone. */
  day: string;
  /** The network's organisation id (LinkedIn: the number of `urn:li:organization:…`). */
  organizationId: string;
  impressions: number;
  clicks: number;
};

/** An organisation as the network's lookup describes it. */
export type RemoteOrganization = {
  id: string;
  name: string | null;
  vanityName: string | null;
  /** Its website as the network has it (any form: "https://www.acme.com/", "acme.com"). */
  website: string | null;
};

/**
 * Company-level engagement (issue 39: LinkedIn's MEMBER_COMPANY pivot); absent where the network
 * does not report it (Meta, Google Ads).
 */
export type AdNetworkCompanyApi = {
  /** The least count the network reports a company at (smaller ones are left out). */
  readonly privacyMinimum: number;
  /** How far back the network keeps company-level results, in days. */
  readonly keptDays: number;
  /** Organisations per lookup call. */
  readonly lookupBatch: number;
  /** Per company and day, the campaign's engagement from `since` to `until` (both included). */
  dailyStats(
    ctx: AdapterContext,
    campaignId: string,
    range: { since: string; until: string },
  ): Promise<RemoteCompanyDay[]>;
  /** The organisations of `ids` (≤ lookupBatch) the network can describe; unknown ones are absent. */
  lookup(ctx: AdapterContext, ids: string[]): Promise<RemoteOrganization[]>;
};

export type AdNetworkCampaignApi = {
  /** Company-level engagement, where the network reports it. */
  readonly companies?: AdNetworkCompanyApi;
  /** The smallest daily budget the network takes, in minor units of the account's currency. */
  readonly minimumDailyBudget: number;
  /**
   * Image sizes an ad is created at (one ad per size, each in its placement). `also`: further sizes
   * the same ad carries (Google's responsive display ad needs a landscape and a square image).
   */
  readonly placements: readonly { size: PlacementSize; label: string; also?: readonly PlacementSize[] }[];
  /**
   * Whether ads speak as a page chosen in Settings (Meta, LinkedIn); false where the network names
   * the advertiser itself (Google Ads). Absent means true.
   */
  readonly needsPage?: boolean;
  /** The budget kinds the network takes from Rally; absent means both. */
  readonly budgetKinds?: readonly CampaignBudget['kind'][];
  /**
   * Uploads a PNG to the ad account's image library; the network's handle for it. `pageId` is the
   * page the ads speak as (LinkedIn's Images API makes the organisation the image's owner).
   */
  uploadImage(
    ctx: AdapterContext,
    adAccountId: string,
    png: Buffer,
    name: string,
    pageId: string,
  ): Promise<{ hash: string }>;
  /**
   * Creates a campaign, always paused: nothing spends until Rally launches it. The budget and
   * schedule are given too for a network that holds them on the campaign (Google Ads); the others
   * set them on the ad set.
   */
  createCampaign(
    ctx: AdapterContext,
    adAccountId: string,
    spec: {
      name: string;
      objective: CampaignObjective;
      budget?: CampaignBudget;
      startsAt?: Date;
      endsAt?: Date | null;
    },
  ): Promise<{ id: string }>;
  /** The audience, budget and schedule (an ad set on Meta), delivering as soon as its campaign does. */
  createAdSet(
    ctx: AdapterContext,
    adAccountId: string,
    spec: {
      name: string;
      campaignId: string;
      objective: CampaignObjective;
      audienceId: string;
      budget: CampaignBudget;
      startsAt: Date;
      endsAt: Date | null;
    },
  ): Promise<{ id: string }>;
  /** A creative speaking as the client's page, with the image, texts and link. */
  createCreative(
    ctx: AdapterContext,
    adAccountId: string,
    spec: {
      name: string;
      pageId: string;
      imageHash: string;
      link: string;
      headline: string;
      message: string;
      /** The placement's `also` images, uploaded beside the main one. */
      moreImages?: { size: PlacementSize; hash: string }[];
    },
  ): Promise<{ id: string }>;
  createAd(
    ctx: AdapterContext,
    adAccountId: string,
    spec: { name: string; adSetId: string; creativeId: string },
  ): Promise<{ id: string }>;
  /**
   * Shows a new creative instead of an ad's old one (the ad was edited in Rally); the ad that now
   * shows it: the same ad where the network repoints it (Meta), a new one in the same ad set where
   * it cannot (LinkedIn: a creative's post cannot change after creation; the old one is archived).
   */
  replaceCreative(
    ctx: AdapterContext,
    adId: string,
    creativeId: string,
    adSetId: string,
  ): Promise<{ adId: string }>;
  /** Launch (ACTIVE) or pause (PAUSED) a campaign. */
  setCampaignStatus(ctx: AdapterContext, campaignId: string, status: 'ACTIVE' | 'PAUSED'): Promise<void>;
  /** The campaign's and its ads' delivery state as the network sees it. */
  readStatus(
    ctx: AdapterContext,
    campaignId: string,
    adIds: string[],
  ): Promise<{ effectiveStatus: string; ads: RemoteAdStatus[] }>;
  /**
   * Daily results of every ad of a campaign from `since` to `until` (YYYY-MM-DD, both included), all
   * pages; days without delivery are absent. `currency` is the ad account's (ISO 4217), when told.
   */
  dailyStats(
    ctx: AdapterContext,
    campaignId: string,
    range: { since: string; until: string },
  ): Promise<{ currency: string | null; rows: RemoteDailyStat[] }>;
};
