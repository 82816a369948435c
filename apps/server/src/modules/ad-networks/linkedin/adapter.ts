import type { LinkedInConfig } from '../../../config/env.ts';
import type { AdapterOptions } from '../../integrations/registry.ts';
import {
  createVendorHttp,
  defaultRateLimitWait,
  oauthCredentialsFrom,
  VendorAuthError,
  VendorError,
} from '../../integrations/vendor-http.ts';
import type { VendorRequest } from '../../integrations/vendor-http.ts';
import type { AdNetworkAdapter, AdapterContext, OAuthCredentials, RemoteAdAccount } from '../port.ts';
import { linkedInCampaignApi } from './campaigns.ts';
import { linkedInCompanyApi } from './companies.ts';

/**
 * LinkedIn (Marketing API, versioned REST at `/rest/…`). Sources, on learn.microsoft.com/linkedin:
 * - Versioning ("LinkedIn Marketing API Versioning"): every `/rest` call carries `LinkedIn-Version:
 *   YYYYMM` (LINKEDIN_API_VERSION) and `X-Restli-Protocol-Version: 2.0.0` ("All API requests are
 *   represented in protocol 2.0.0 and require the header", DMP Segments).
 * - OAuth ("Authorization Code Flow (3-legged OAuth)", "Programmatic Refresh Tokens"): consent at
 *   `/oauth/v2/authorization`, tokens at `/oauth/v2/accessToken`; access tokens last 60 days and
 *   refresh tokens 365 days from the first consent (a refresh does not extend them); only approved
 *   Marketing partners get refresh tokens. `/oauth/v2/revoke` revokes a token.
 * - Errors ("Error Handling"): `{status, serviceErrorCode, code?, message}`; 401 is a missing,
 *   expired or revoked token; 429 a throttle ("DMP Segment Users › Rate Limits": a per-member limit
 *   per minute on the users endpoint, no Retry-After documented).
 * - Ad accounts ("Account Access Controls" `adAccountUsers?q=authenticatedUser`, "Ad Accounts"):
 *   managing audiences needs a role other than VIEWER on the account ("DMP Segment Users").
 * - Pages ("Organization Access Control by Role"): `organizationAcls?q=roleAssignee&role=
 *   ADMINISTRATOR&state=APPROVED`; names from `organizations/{id}` (`localizedName`).
 * - Audiences ("DMP Segments", "DMP Segment Users", "DMP Segment Destinations"): a USER segment with
 *   destination LINKEDIN and the partner's `sourcePlatform` (assigned by LinkedIn; LinkedIn's Postman
 *   collection "Streaming users"); wait 5 s after creating it before adding users; users are sent as
 *   `BATCH_CREATE` of `{action: ADD|REMOVE, userIds: [{idType: SHA256_EMAIL, idValue}]}`; the
 *   destination's `audienceSize` is what targeting can use (`matchedCount` covers only 7 days).
 * Segment's open-source LinkedIn Audiences destination (segmentio/action-destinations) sends the
 * same shapes. test/fakes/linkedin.ts enforces them.
 */

/** "Error Handling": the body LinkedIn answers a failed call with. */
type LinkedInError = { status?: number; serviceErrorCode?: number; code?: string; message?: string };
/** Rest.li collections: `{elements, paging: {start, count, total}}`. */
type Collection<T> = { elements: T[]; paging?: { start?: number; count?: number; total?: number } };

/**
 * Rally's scopes: ads (r_ads, rw_ads), audiences (rw_dmp_segments), pages, and who connected; for
 * campaigns, the page's images and dark posts (w_organization_social, "Images API", "Posts API")
 * and results (r_ads_reporting, "Reporting").
 */
export const LINKEDIN_SCOPES = [
  'r_basicprofile',
  'r_ads',
  'rw_ads',
  'rw_dmp_segments',
  'r_organization_admin',
  'w_organization_social',
  'r_ads_reporting',
];
/** "DMP Segment Users": wait 5 seconds after creating a segment before adding users. */
export const DMP_SETTLE_MS = 5_000;
/** "DMP Segment Users › Rate Limits": the per-member limit is counted per minute. */
const THROTTLE_WAIT_MS = 60_000;
/** Rows per page asked of a finder (Rest.li `count`). */
const PAGE = 100;

const accountUrn = (id: string) => `urn:li:sponsoredAccount:${id}`;
const idOfUrn = (urn: string) => urn.slice(urn.lastIndexOf(':') + 1);

export function createLinkedInAdapter(config: LinkedInConfig, opts: AdapterOptions = {}): AdNetworkAdapter {
  const rest = `${config.apiUrl}/rest`;
  const oauth = `${config.authUrl}/oauth/v2`;
  let lastReason = 'LinkedIn refused Rally’s access. Connect LinkedIn again.';
  const app = () => {
    if (!config.clientId || !config.clientSecret)
      throw new Error('LinkedIn is not set up (LINKEDIN_CLIENT_ID, LINKEDIN_CLIENT_SECRET)');
    return { client_id: config.clientId, client_secret: config.clientSecret };
  };

  /** "Programmatic Refresh Tokens": grant_type=refresh_token; the refresh token keeps its first expiry. */
  async function refreshGrant(creds: OAuthCredentials): Promise<OAuthCredentials> {
    if (!creds.refreshToken) throw new VendorAuthError(lastReason);
    const reply = await http.raw<{ access_token: string; expires_in?: number; refresh_token?: string }>({
      method: 'POST',
      url: `${oauth}/accessToken`,
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: creds.refreshToken, ...app() }),
    });
    return oauthCredentialsFrom(reply, creds);
  }

  /** The `x-restli-id` of each context's last reply: how a Rest.li CREATE names what it made. */
  const createdIds = new WeakMap<AdapterContext, string>();
  const http = createVendorHttp({
    vendor: 'LinkedIn',
    retry: opts.retry,
    authorize: (creds): Record<string, string> =>
      creds.kind === 'oauth' ? { authorization: `Bearer ${creds.accessToken}` } : {},
    refresh: refreshGrant,
    // No Retry-After is documented for LinkedIn's 429: wait out the per-minute window instead.
    rateLimitWait: (res, now) => defaultRateLimitWait(res, now) ?? THROTTLE_WAIT_MS,
    observe: (ctx, res) => {
      const id = res.headers.get('x-restli-id');
      if (id) createdIds.set(ctx, id);
      else createdIds.delete(ctx);
    },
    get revokedMessage() {
      return lastReason;
    },
    classify: async (res) => {
      // Keep LinkedIn's own words for a refused token: the connection shows them when it goes inactive.
      if (res.status === 401) {
        try {
          const body = JSON.parse(await res.text()) as LinkedInError;
          if (body.message)
            lastReason = `LinkedIn refused Rally’s access: ${body.message}. Connect LinkedIn again.`;
        } catch {
          // Not JSON: keep the general message.
        }
      }
      return null;
    },
  });

  /** A versioned REST call with the two headers LinkedIn requires on every `/rest` request. */
  function call<T>(ctx: AdapterContext, req: VendorRequest): Promise<T> {
    return http.request<T>(ctx, {
      ...req,
      url: `${rest}${req.url}`,
      headers: {
        'LinkedIn-Version': config.apiVersion,
        'X-Restli-Protocol-Version': '2.0.0',
        ...req.headers,
      },
    });
  }

  /** A finder followed page by page (`start`, `count`) until `paging.total` is reached. */
  async function all<T>(ctx: AdapterContext, path: string): Promise<T[]> {
    const items: T[] = [];
    for (let start = 0; ;) {
      const sep = path.includes('?') ? '&' : '?';
      const page = await call<Collection<T>>(ctx, { url: `${path}${sep}start=${start}&count=${PAGE}` });
      items.push(...page.elements);
      start += page.elements.length;
      const total = page.paging?.total;
      if (!page.elements.length || (total !== undefined ? start >= total : page.elements.length < PAGE))
        return items;
    }
  }

  type Segment = {
    id: number;
    name: string;
    destinations?: {
      destination: string;
      status?: string;
      audienceSize?: number;
      matchedCount?: number;
      destinationSegmentId?: string;
    }[];
  };
  const segment = (ctx: AdapterContext, id: string) =>
    call<Segment>(ctx, { url: `/dmpSegments/${encodeURIComponent(id)}` });

  async function members(ctx: AdapterContext, segmentId: string, action: 'ADD' | 'REMOVE', hashes: string[]) {
    const reply = await call<{ elements?: { status?: number }[] }>(ctx, {
      method: 'POST',
      url: `/dmpSegments/${encodeURIComponent(segmentId)}/users`,
      headers: { 'X-RestLi-Method': 'BATCH_CREATE' },
      body: {
        elements: hashes.map((h) => ({ action, userIds: [{ idType: 'SHA256_EMAIL', idValue: h }] })),
      },
    });
    const statuses = reply.elements ?? [];
    return { received: hashes.length, invalid: statuses.filter((e) => (e.status ?? 201) >= 400).length };
  }

  return {
    network: 'linkedin',
    // Rally's batch: 5,000 users per BATCH_CREATE (see docs/integrations.md on where this comes from).
    batchLimit: Math.min(opts.batchLimit ?? 5_000, 5_000),
    // LinkedIn serves a matched audience only once it reaches 300 members (Campaign Manager help,
    // "Matched Audiences": the minimum audience size is 300).
    minimumAudience: 300,

    authorizeUrl({ state, redirectUri }) {
      const { client_id } = app();
      return `${oauth}/authorization?${new URLSearchParams({
        response_type: 'code',
        client_id,
        redirect_uri: redirectUri,
        state,
        scope: LINKEDIN_SCOPES.join(' '),
      })}`;
    },

    async exchangeCode({ code, redirectUri }) {
      const reply = await http.raw<{ access_token: string; expires_in?: number; refresh_token?: string }>(
        {
          method: 'POST',
          url: `${oauth}/accessToken`,
          body: new URLSearchParams({
            grant_type: 'authorization_code',
            code,
            redirect_uri: redirectUri,
            ...app(),
          }),
        },
        undefined,
        true,
      );
      return oauthCredentialsFrom(reply);
    },

    async refreshIfDue(ctx, withinMs) {
      const creds = ctx.credentials();
      if (creds.kind !== 'oauth' || !creds.expiresAt) return null;
      const left = Date.parse(creds.expiresAt) - Date.now();
      if (left > withinMs) return null;
      // Without a refresh token (an app not approved for them) the token is used until it expires.
      if (!creds.refreshToken) {
        if (left > 0) return null;
        throw new VendorAuthError('LinkedIn’s access for Rally has expired. Connect LinkedIn again.');
      }
      try {
        const next = await refreshGrant(creds);
        await ctx.saveCredentials(next);
        return next;
      } catch (err) {
        // Only LinkedIn refusing the grant ends the connection; an outage is retried by the queue.
        const refused =
          err instanceof VendorAuthError ||
          (err instanceof VendorError && err.status >= 400 && err.status < 500);
        if (!refused) throw err;
        throw new VendorAuthError(
          'LinkedIn’s access for Rally has expired (LinkedIn asks for a new consent every year). Connect LinkedIn again.',
        );
      }
    },

    async revoke(ctx) {
      const creds = ctx.credentials();
      if (creds.kind !== 'oauth') return;
      await http.raw({
        method: 'POST',
        url: `${oauth}/revoke`,
        body: new URLSearchParams({ ...app(), token: creds.accessToken }),
      });
    },

    async whoami(ctx) {
      const me = await call<{ id: string; localizedFirstName?: string; localizedLastName?: string }>(ctx, {
        url: '/me',
      });
      const name = [me.localizedFirstName, me.localizedLastName].filter(Boolean).join(' ');
      return { name: name || me.id };
    },

    async adAccounts(ctx) {
      const roles = await all<{ account: string; role: string }>(ctx, '/adAccountUsers?q=authenticatedUser');
      const accounts: RemoteAdAccount[] = [];
      for (const r of roles) {
        const id = idOfUrn(r.account);
        const a = await call<{ id: number; name?: string; currency?: string; status?: string }>(ctx, {
          url: `/adAccounts/${encodeURIComponent(id)}`,
        });
        accounts.push({
          id: String(a.id),
          name: a.name ?? id,
          currency: a.currency ?? null,
          // Audiences need an ACTIVE account and a role other than VIEWER ("DMP Segment Users").
          isActive: a.status === 'ACTIVE' && r.role !== 'VIEWER',
        });
      }
      return accounts;
    },

    async pages(ctx) {
      const acls = await all<{ organization: string }>(
        ctx,
        '/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED',
      );
      const pages = [];
      for (const acl of acls) {
        const id = idOfUrn(acl.organization);
        const org = await call<{ id: number; localizedName?: string }>(ctx, {
          url: `/organizations/${encodeURIComponent(id)}`,
        });
        pages.push({ id: String(org.id), name: org.localizedName ?? id });
      }
      return pages;
    },

    async createAudience(ctx, adAccountId, spec) {
      await call(ctx, {
        method: 'POST',
        url: '/dmpSegments',
        body: {
          // Only the documented fields: Rest.li refuses unknown ones, and the DMP segment schema has
          // no description (Rally's description stays in Rally).
          name: spec.name,
          account: accountUrn(adAccountId),
          accessPolicy: 'PRIVATE',
          type: 'USER',
          sourcePlatform: config.sourcePlatform,
          destinations: [{ destination: 'LINKEDIN' }],
        },
      });
      // "DMP Segments › Create": a 201 with an empty body; the new id is in the `x-restli-id` header.
      const id = createdIds.get(ctx);
      if (!id) throw new Error('LinkedIn created a segment without naming it (no x-restli-id)');
      await http.policy.sleep(DMP_SETTLE_MS);
      return { id };
    },

    async updateAudience(ctx, audienceId, spec) {
      // Rest.li partial update: `{patch: {$set: {…}}}` with X-RestLi-Method PARTIAL_UPDATE.
      await call(ctx, {
        method: 'POST',
        url: `/dmpSegments/${encodeURIComponent(audienceId)}`,
        headers: { 'X-RestLi-Method': 'PARTIAL_UPDATE' },
        body: { patch: { $set: { name: spec.name } } },
      });
    },

    async readAudience(ctx, audienceId) {
      const s = await segment(ctx, audienceId);
      const dest = s.destinations?.find((d) => d.destination === 'LINKEDIN');
      // "Matched Audiences FAQ": EXPIRED, FAILED and ERROR segments cannot be used in targeting.
      const unusable = dest?.status && ['EXPIRED', 'FAILED', 'ERROR'].includes(dest.status);
      const size =
        typeof dest?.audienceSize === 'number' && dest.audienceSize >= 0 ? dest.audienceSize : null;
      return {
        id: String(s.id),
        name: s.name,
        matchedLowerBound: size,
        matchedUpperBound: size,
        problem: unusable ? `LinkedIn says the audience is ${dest.status?.toLowerCase()}` : null,
      };
    },

    addMembers: (ctx, audienceId, hashes) => members(ctx, audienceId, 'ADD', hashes),
    removeMembers: (ctx, audienceId, hashes) => members(ctx, audienceId, 'REMOVE', hashes),

    campaigns: {
      ...linkedInCampaignApi({
        http,
        call,
        createdId: (ctx) => createdIds.get(ctx),
        // "DMP Segment Destinations": destinationSegmentId is the ad segment targeting names.
        adSegmentOf: async (ctx, id) =>
          (await segment(ctx, id)).destinations?.find((d) => d.destination === 'LINKEDIN')
            ?.destinationSegmentId ?? null,
      }),
      // Company-level engagement (MEMBER_COMPANY) and the organisations behind it.
      companies: linkedInCompanyApi({ call }),
    },
  };
}
