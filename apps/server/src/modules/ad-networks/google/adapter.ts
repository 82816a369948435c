import type { GoogleAdsConfig } from '../../../config/env.ts';
import type { AdapterOptions } from '../../integrations/registry.ts';
import {
  createVendorHttp,
  oauthCredentialsFrom,
  VendorAuthError,
  VendorError,
} from '../../integrations/vendor-http.ts';
import type { ClassifiedResponse, ResponseVerdict } from '../../integrations/vendor-http.ts';
import type { AdNetworkAdapter, AdapterContext, OAuthCredentials, RemoteAdAccount } from '../port.ts';
import { googleCampaignApi } from './campaigns.ts';
import { hashEmailForGoogle } from './normalise.ts';

/**
 * Google Ads Customer Match. Since 1 April 2026 the Google Ads API takes no new Customer Match
 * uploaders (OfflineUserDataJobService and UserDataService answer CUSTOMER_NOT_ALLOWLISTED_FOR_THIS_FEATURE;
 * Google Ads Developer Blog, "Changes to Customer Match Support in the Google Ads API", 4 March 2026)
 * and Google sends them to the Data Manager API. So:
 * - the ad accounts come from the Google Ads API (`customers:listAccessibleCustomers`, then a GAQL
 *   search per customer for its name, currency and status), which needs the `developer-token` header;
 * - the audience is a Customer Match user list created, read and renamed through the Data Manager API
 *   (`accountTypes/GOOGLE_ADS/accounts/{customer}/userLists`), and members go in and out with
 *   `audienceMembers:ingest` and `:remove`, at most 10,000 per request (Data Manager API › Limits).
 * Request shapes: the Data Manager API's discovery document (test/vendor-specs/google-datamanager-*.json,
 * checked in google/contract.test.ts). test/fakes/google-ads.ts enforces the same.
 */

/** OAuth scopes: Google Ads API (accounts) and Data Manager API (user lists and members). */
export const GOOGLE_ADS_SCOPES = [
  'https://www.googleapis.com/auth/adwords',
  'https://www.googleapis.com/auth/datamanager',
];

/** google.rpc.Status as REST answers it: `{error:{code,message,status,details:[{'@type',…}]}}`. */
type RpcError = {
  error?: {
    code?: number;
    message?: string;
    status?: string;
    details?: {
      '@type'?: string;
      retryDelay?: string;
      errors?: { details?: { quotaErrorDetails?: { retryDelay?: string } } }[];
    }[];
  };
};

/** "30s" / "1.5s" (protobuf Duration in JSON) in ms; null when not a duration. */
export function durationMs(value: string | undefined): number | null {
  const m = value ? /^(\d+(?:\.\d+)?)s$/.exec(value) : null;
  return m ? Math.round(Number(m[1]) * 1000) : null;
}

/**
 * The wait a RESOURCE_EXHAUSTED reply asks for: google.rpc.RetryInfo.retryDelay (API Design Guide ›
 * Errors), or a GoogleAdsFailure's QuotaErrorDetails.retry_delay (Google Ads API › QuotaErrorDetails).
 */
export function retryDelayMs(body: RpcError): number | null {
  const waits: number[] = [];
  for (const d of body.error?.details ?? []) {
    const own = durationMs(d.retryDelay);
    if (own !== null) waits.push(own);
    for (const e of d.errors ?? []) {
      const q = durationMs(e.details?.quotaErrorDetails?.retryDelay);
      if (q !== null) waits.push(q);
    }
  }
  return waits.length ? Math.max(...waits) : null;
}

const ACCOUNTS_QUERY =
  'SELECT customer.id, customer.descriptive_name, customer.currency_code, customer.status, customer.manager FROM customer';
/** Customer Match keeps a member at most 540 days (Google Ads Help › Customer Match retention). */
const MEMBERSHIP_DURATION = `${540 * 86_400}s`;
/** Data Manager API › Limits: 10,000 AudienceMember resources per ingest or remove request. */
const BATCH_LIMIT = 10_000;

/** A user list's resource name: `accountTypes/GOOGLE_ADS/accounts/{customer}/userLists/{id}`. */
const LIST_NAME = /^accountTypes\/GOOGLE_ADS\/accounts\/(\d+)\/userLists\/(\d+)$/;

export function createGoogleAdsAdapter(config: GoogleAdsConfig, opts: AdapterOptions = {}): AdNetworkAdapter {
  const ads = `${config.apiUrl}/${config.apiVersion}`;
  const dm = `${config.dataManagerUrl}/v1`;
  let lastReason = 'Google refused Rally’s access. Connect Google Ads again.';
  const app = () => {
    if (!config.appId || !config.appSecret || !config.developerToken)
      throw new Error(
        'Google Ads is not set up (GOOGLE_ADS_CLIENT_ID, GOOGLE_ADS_CLIENT_SECRET, GOOGLE_ADS_DEVELOPER_TOKEN)',
      );
    return { client_id: config.appId, client_secret: config.appSecret };
  };

  async function classify(res: ClassifiedResponse): Promise<ResponseVerdict | null> {
    if (res.status < 400) return null;
    let body: RpcError;
    try {
      body = JSON.parse(await res.text()) as RpcError;
    } catch {
      return null;
    }
    // 401 UNAUTHENTICATED: the access token expired or was revoked (one refresh, then inactive).
    if (res.status === 401 || body.error?.status === 'UNAUTHENTICATED') {
      lastReason = `Google refused Rally’s access: ${body.error?.message ?? 'the token is no longer valid'}. Connect Google Ads again.`;
      return { kind: 'auth' };
    }
    if (res.status === 429 || body.error?.status === 'RESOURCE_EXHAUSTED')
      return { kind: 'rate_limit', waitMs: retryDelayMs(body) };
    return null;
  }

  const http = createVendorHttp({
    vendor: 'Google Ads',
    retry: opts.retry,
    authorize: (creds): Record<string, string> =>
      creds.kind === 'oauth' ? { authorization: `Bearer ${creds.accessToken}` } : {},
    get revokedMessage() {
      return lastReason;
    },
    classify,
    refresh: (creds) => refresh(creds, false),
  });

  /**
   * OAuth 2.0 for Web Server Applications › Refreshing an access token: `grant_type=refresh_token`.
   * A revoked or expired grant answers 400 `invalid_grant` ("Token has been expired or revoked.").
   */
  async function refresh(creds: OAuthCredentials, interactive: boolean): Promise<OAuthCredentials> {
    try {
      const reply = await http.raw<{ access_token: string; expires_in?: number }>(
        {
          method: 'POST',
          url: `${config.tokenUrl}/token`,
          body: new URLSearchParams({
            ...app(),
            grant_type: 'refresh_token',
            refresh_token: creds.refreshToken ?? '',
          }),
        },
        undefined,
        interactive,
      );
      return oauthCredentialsFrom(reply, creds);
    } catch (err) {
      const text = (err as { body?: string }).body ?? '';
      if (text.includes('invalid_grant')) {
        const said = /"error_description"\s*:\s*"([^"]+)"/.exec(text)?.[1] ?? 'the grant is no longer valid';
        lastReason = `Google refused Rally’s access: ${said} Connect Google Ads again.`;
      }
      throw err;
    }
  }

  /** Google Ads API calls carry the developer token (Google Ads API › Make your first API call). */
  const adsHeaders = (): Record<string, string> => ({ 'developer-token': config.developerToken ?? '' });

  /**
   * A Google Ads API method of a customer: POST with the developer token and `login-customer-id`,
   * the customer whose access the call uses ("API call structure › Request headers": digits only;
   * the login reaches these accounts directly, listAccessibleCustomers).
   */
  const call = <T>(ctx: AdapterContext, customer: string, method: string, body: unknown) =>
    http.request<T>(ctx, {
      method: 'POST',
      url: `${ads}/customers/${customer}/${method}`,
      headers: { ...adsHeaders(), 'login-customer-id': customer },
      body,
    });

  function destination(audienceId: string) {
    const m = LIST_NAME.exec(audienceId);
    if (!m) throw new Error(`not a Google Ads user list: ${audienceId}`);
    return { operatingAccount: { accountType: 'GOOGLE_ADS', accountId: m[1] }, productDestinationId: m[2] };
  }
  // One e-mail identifier per member (a member may carry up to 10; Rally knows one address).
  const members = (hashes: string[]) =>
    hashes.map((h) => ({ userData: { userIdentifiers: [{ emailAddress: h }] } }));

  async function accessibleCustomers(ctx: AdapterContext): Promise<string[]> {
    // CustomerService.ListAccessibleCustomers: `{resourceNames: ["customers/1234567890", …]}`.
    const r = await http.request<{ resourceNames?: string[] }>(ctx, {
      url: `${ads}/customers:listAccessibleCustomers`,
      headers: adsHeaders(),
    });
    return (r.resourceNames ?? []).map((n) => n.replace(/^customers\//, ''));
  }

  return {
    network: 'google',
    batchLimit: Math.min(opts.batchLimit ?? BATCH_LIMIT, BATCH_LIMIT),
    // Customer Match serves on Search and Display from 100 active matched people (Google Ads Help
    // › Customer Match; Ads Data Hub › remarketing audiences: "100 or more 30-day active users").
    // YouTube and Lookalike seeds need 1,000: said on the screen, not enforced here.
    minimumAudience: 100,
    hashEmail: hashEmailForGoogle,
    campaigns: googleCampaignApi({ call }),

    authorizeUrl({ state, redirectUri }) {
      // OAuth 2.0 for Web Server Applications: offline access gives a refresh token; `prompt=consent`
      // gives one again on reconnect.
      const { client_id } = app();
      return `${config.authUrl}/o/oauth2/v2/auth?${new URLSearchParams({
        client_id,
        redirect_uri: redirectUri,
        response_type: 'code',
        scope: GOOGLE_ADS_SCOPES.join(' '),
        access_type: 'offline',
        prompt: 'consent',
        include_granted_scopes: 'true',
        state,
      })}`;
    },

    async exchangeCode({ code, redirectUri }) {
      const reply = await http.raw<{ access_token: string; refresh_token?: string; expires_in?: number }>(
        {
          method: 'POST',
          url: `${config.tokenUrl}/token`,
          body: new URLSearchParams({
            ...app(),
            code,
            redirect_uri: redirectUri,
            grant_type: 'authorization_code',
          }),
        },
        undefined,
        true,
      );
      return oauthCredentialsFrom(reply);
    },

    async refreshIfDue(ctx, withinMs) {
      const creds = ctx.credentials();
      if (creds.kind !== 'oauth' || !creds.refreshToken || !creds.expiresAt) return null;
      if (Date.parse(creds.expiresAt) - Date.now() > withinMs) return null;
      let next: OAuthCredentials;
      try {
        next = await refresh(creds, ctx.interactive ?? false);
      } catch (err) {
        // Only Google's refusal (4xx: invalid_grant, invalid_client) ends the connection; a token
        // host that cannot be reached or answers 5xx is an outage, retried by the queue.
        if (err instanceof VendorError && err.status >= 400 && err.status < 500)
          throw new VendorAuthError(lastReason);
        throw err;
      }
      await ctx.saveCredentials(next);
      return next;
    },

    async revoke(ctx) {
      // OAuth 2.0 › Revoking a token: POST the refresh token (it revokes the whole grant).
      const creds = ctx.credentials();
      if (creds.kind !== 'oauth') return;
      await http.raw({
        method: 'POST',
        url: `${config.tokenUrl}/revoke`,
        body: new URLSearchParams({ token: creds.refreshToken ?? creds.accessToken }),
      });
    },

    async whoami(ctx) {
      // The scopes include no profile: the login is named by the accounts it reaches.
      const n = (await accessibleCustomers(ctx)).length;
      return { name: `Google Ads login with ${n} ${n === 1 ? 'account' : 'accounts'}` };
    },

    async adAccounts(ctx) {
      const out: RemoteAdAccount[] = [];
      for (const id of await accessibleCustomers(ctx)) {
        // GoogleAdsService.Search: `{results:[{customer:{…}}]}`; camelCase fields in REST.
        const r = await http.request<{
          results?: {
            customer?: {
              id?: string;
              descriptiveName?: string;
              currencyCode?: string;
              status?: string;
              manager?: boolean;
            };
          }[];
        }>(ctx, {
          method: 'POST',
          url: `${ads}/customers/${id}/googleAds:search`,
          headers: { ...adsHeaders(), 'login-customer-id': id },
          body: { query: ACCOUNTS_QUERY },
        });
        const c = r.results?.[0]?.customer;
        // A manager account serves no ads of its own.
        if (!c || c.manager) continue;
        out.push({
          id,
          name: c.descriptiveName || id,
          currency: c.currencyCode ?? null,
          isActive: c.status === 'ENABLED',
        });
      }
      return out;
    },

    async pages() {
      // Google Ads speaks as the advertiser: there is no page to choose.
      return [];
    },

    async createAudience(ctx, adAccountId, spec) {
      // Data Manager API › Create an audience: a first-party contact-information (CONTACT_ID) list.
      const list = await http.request<{ name: string }>(ctx, {
        method: 'POST',
        url: `${dm}/accountTypes/GOOGLE_ADS/accounts/${adAccountId}/userLists`,
        body: {
          displayName: spec.name,
          description: spec.description,
          membershipStatus: 'OPEN',
          membershipDuration: MEMBERSHIP_DURATION,
          ingestedUserListInfo: {
            uploadKeyTypes: ['CONTACT_ID'],
            contactIdInfo: { dataSourceType: 'DATA_SOURCE_TYPE_FIRST_PARTY' },
          },
        },
      });
      return { id: list.name };
    },

    async updateAudience(ctx, audienceId, spec) {
      await http.request(ctx, {
        method: 'PATCH',
        url: `${dm}/${audienceId}?updateMask=displayName,description`,
        body: { displayName: spec.name, description: spec.description },
      });
    },

    async readAudience(ctx, audienceId) {
      const l = await http.request<{
        name: string;
        displayName?: string;
        membershipStatus?: string;
        closingReason?: string;
        sizeInfo?: { displayNetworkMembersCount?: string; searchNetworkMembersCount?: string };
      }>(ctx, { url: `${dm}/${audienceId}` });
      // SizeInfo: estimated members on the Display Network and on Search (int64 as strings); absent
      // until Google has matched the list (up to 48 hours).
      const counts = [l.sizeInfo?.displayNetworkMembersCount, l.sizeInfo?.searchNetworkMembersCount]
        .map(Number)
        .filter((n) => Number.isFinite(n) && n >= 0);
      const matched = l.sizeInfo && counts.length ? Math.max(...counts) : null;
      return {
        id: l.name,
        name: l.displayName ?? l.name,
        matchedLowerBound: matched,
        matchedUpperBound: matched,
        problem:
          l.membershipStatus === 'CLOSED'
            ? `Google closed this list${l.closingReason === 'UNUSED' ? ' because no campaign used it' : ''}.`
            : null,
      };
    },

    async addMembers(ctx, audienceId, hashes) {
      await http.request<{ requestId?: string }>(ctx, {
        method: 'POST',
        url: `${dm}/audienceMembers:ingest`,
        body: {
          destinations: [destination(audienceId)],
          audienceMembers: members(hashes),
          encoding: 'HEX',
          // TermsOfService: the Customer Match terms "must be accepted when ingesting UserData";
          // connecting Google Ads in Rally is where the advertiser accepts them.
          termsOfService: { customerMatchTermsOfServiceStatus: 'ACCEPTED' },
        },
      });
      return { received: hashes.length, invalid: 0 };
    },

    async removeMembers(ctx, audienceId, hashes) {
      await http.request<{ requestId?: string }>(ctx, {
        method: 'POST',
        url: `${dm}/audienceMembers:remove`,
        body: { destinations: [destination(audienceId)], audienceMembers: members(hashes), encoding: 'HEX' },
      });
      return { received: hashes.length, invalid: 0 };
    },
  };
}
