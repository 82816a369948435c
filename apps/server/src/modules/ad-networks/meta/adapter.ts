import type { MetaConfig } from '../../../config/env.ts';
import type { AdapterOptions } from '../../integrations/registry.ts';
import {
  createVendorHttp,
  oauthCredentialsFrom,
  VendorAuthError,
  VendorError,
} from '../../integrations/vendor-http.ts';
import type { ClassifiedResponse, ResponseVerdict } from '../../integrations/vendor-http.ts';
import type { AdNetworkAdapter, AdapterContext, OAuthCredentials, RemoteAdAccount } from '../port.ts';
import { metaCampaignApi } from './campaigns.ts';

/**
 * Meta (Marketing API over the Graph API, versioned paths `/{version}/…`, META_API_VERSION).
 * Sources per call are cited beside them; test/fakes/meta.ts enforces the same.
 */

/** Graph API › Handling Errors: `{error:{message,type,code,error_subcode,fbtrace_id}}`. */
type GraphError = { error?: { message?: string; type?: string; code?: number; error_subcode?: number } };

/**
 * Graph API › Rate Limiting: throttling codes (4 app, 17 user, 32 page, 613 custom, 80000–80014
 * Business Use Case, 80003 custom audiences), answered with HTTP 400 (sometimes 403/429).
 */
const THROTTLE_CODES = new Set([4, 17, 32, 613]);
const isThrottle = (code: number) => THROTTLE_CODES.has(code) || (code >= 80000 && code <= 80014);

/**
 * Graph API › Rate Limiting › Business Use Case: `X-Business-Use-Case-Usage` is
 * `{business_id: [{type, call_count, total_cputime, total_time, estimated_time_to_regain_access}]}`,
 * the last in minutes. The longest wait named, in ms; null when none.
 */
export function bucWaitMs(header: string | null): number | null {
  if (!header) return null;
  try {
    const usage = JSON.parse(header) as Record<string, { estimated_time_to_regain_access?: number }[]>;
    const minutes = Object.values(usage)
      .flat()
      .map((u) => Number(u.estimated_time_to_regain_access ?? 0));
    const most = Math.max(0, ...minutes.filter(Number.isFinite));
    return most > 0 ? most * 60_000 : null;
  } catch {
    return null;
  }
}

/** Meta answers refusals with HTTP 400 and a code: tell a throttle or a dead token from other errors. */
async function classify(res: ClassifiedResponse): Promise<ResponseVerdict | null> {
  if (res.status < 400) return null;
  let body: GraphError;
  try {
    body = JSON.parse(await res.text()) as GraphError;
  } catch {
    return null;
  }
  const code = Number(body.error?.code);
  // Access Token Guide › Handling Errors: 190 is an invalid, expired or revoked token.
  if (code === 190 || code === 102) return { kind: 'auth' };
  if (isThrottle(code))
    return { kind: 'rate_limit', waitMs: bucWaitMs(res.headers.get('x-business-use-case-usage')) };
  return null;
}

/** The scopes Rally asks for: custom audiences and ads (ads_management), pages (pages_show_list). */
export const META_SCOPES = ['ads_management', 'business_management', 'pages_show_list'];

export function createMetaAdapter(config: MetaConfig, opts: AdapterOptions = {}): AdNetworkAdapter {
  const graph = `${config.graphUrl}/${config.apiVersion}`;
  let lastReason = 'Meta refused Rally’s access. Connect Meta again.';
  const http = createVendorHttp({
    vendor: 'Meta',
    retry: opts.retry,
    authorize: (creds): Record<string, string> =>
      creds.kind === 'oauth' ? { authorization: `Bearer ${creds.accessToken}` } : {},
    get revokedMessage() {
      return lastReason;
    },
    classify: async (res) => {
      const verdict = await classify(res);
      if (verdict?.kind === 'auth') {
        const body = JSON.parse(await res.text()) as GraphError;
        lastReason = `Meta refused Rally’s access: ${body.error?.message ?? 'the token is no longer valid'}. Connect Meta again.`;
      }
      return verdict;
    },
  });
  const app = () => {
    if (!config.appId || !config.appSecret)
      throw new Error('Meta is not set up (META_APP_ID, META_APP_SECRET)');
    return { client_id: config.appId, client_secret: config.appSecret };
  };
  const qs = (params: Record<string, string>) => new URLSearchParams(params).toString();

  /** Access Token Guide › Get Long-Lived Tokens: `grant_type=fb_exchange_token`, about 60 days. */
  async function longLived(token: string, interactive: boolean): Promise<OAuthCredentials> {
    const reply = await http.raw<{ access_token: string; expires_in?: number }>(
      {
        url: `${graph}/oauth/access_token?${qs({ grant_type: 'fb_exchange_token', ...app(), fb_exchange_token: token })}`,
      },
      undefined,
      interactive,
    );
    // Meta has no refresh token: the long-lived token itself is exchanged again before it expires.
    return { ...oauthCredentialsFrom(reply), refreshToken: null };
  }

  /** Graph lists: `{data, paging:{cursors, next}}`; `next` is followed until absent. */
  async function list<T>(ctx: AdapterContext, path: string, fields: string): Promise<T[]> {
    const items: T[] = [];
    let url: string | undefined = `${graph}${path}?${qs({ fields, limit: '100' })}`;
    while (url) {
      const page: { data: T[]; paging?: { next?: string } } = await http.request(ctx, { url });
      items.push(...page.data);
      url = page.paging?.next;
    }
    return items;
  }

  const members = (hashes: string[]) => ({ payload: { schema: ['EMAIL'], data: hashes.map((h) => [h]) } });
  type UsersReply = { num_received?: number; num_invalid_entries?: number };

  return {
    network: 'meta',
    // Custom Audience Users: "only a maximum of 10000 at a time".
    batchLimit: Math.min(opts.batchLimit ?? 10_000, 10_000),
    // Custom Audiences: an audience needs about 100 matched people to deliver (delivery_status 300).
    minimumAudience: 100,

    authorizeUrl({ state, redirectUri }) {
      // Facebook Login › Manually Build a Login Flow: the versioned login dialog.
      const { client_id } = app();
      return `${config.authUrl}/${config.apiVersion}/dialog/oauth?${qs({
        client_id,
        redirect_uri: redirectUri,
        state,
        response_type: 'code',
        scope: META_SCOPES.join(','),
      })}`;
    },

    async exchangeCode({ code, redirectUri }) {
      // Manually Build a Login Flow › Exchanging Code: a short-lived token, then a long-lived one.
      const short = await http.raw<{ access_token: string }>(
        { url: `${graph}/oauth/access_token?${qs({ ...app(), redirect_uri: redirectUri, code })}` },
        undefined,
        true,
      );
      return longLived(short.access_token, true);
    },

    async refreshIfDue(ctx, withinMs) {
      const creds = ctx.credentials();
      if (creds.kind !== 'oauth' || !creds.expiresAt) return null;
      if (Date.parse(creds.expiresAt) - Date.now() > withinMs) return null;
      try {
        const next = await longLived(creds.accessToken, ctx.interactive ?? false);
        await ctx.saveCredentials(next);
        return next;
      } catch (err) {
        // Only Meta's refusal (a 4xx: OAuthException, code 190) ends the connection; a Graph host
        // that cannot be reached or answers 5xx is an outage, retried by the queue (as for Google).
        if (err instanceof VendorAuthError || (err instanceof VendorError && err.status < 500))
          throw new VendorAuthError('Meta’s access for Rally has expired. Connect Meta again.');
        throw err;
      }
    },

    async revoke(ctx) {
      await http.request(ctx, { method: 'DELETE', url: `${graph}/me/permissions` });
    },

    async whoami(ctx) {
      const me = await http.request<{ id: string; name?: string }>(ctx, {
        url: `${graph}/me?fields=id,name`,
      });
      return { name: me.name ?? me.id };
    },

    async adAccounts(ctx) {
      // Ad Account reference: account_status 1 is ACTIVE (2 disabled, 3 unsettled, …).
      const rows = await list<{ id: string; name?: string; currency?: string; account_status?: number }>(
        ctx,
        '/me/adaccounts',
        'id,name,currency,account_status',
      );
      return rows.map((a): RemoteAdAccount => ({
        id: a.id,
        name: a.name ?? a.id,
        currency: a.currency ?? null,
        isActive: a.account_status === 1,
      }));
    },

    async pages(ctx) {
      const rows = await list<{ id: string; name?: string }>(ctx, '/me/accounts', 'id,name');
      return rows.map((p) => ({ id: p.id, name: p.name ?? p.id }));
    },

    async createAudience(ctx, adAccountId, spec) {
      // Custom Audience reference: a customer-file audience (subtype CUSTOM) with its data source.
      return http.request<{ id: string }>(ctx, {
        method: 'POST',
        url: `${graph}/${adAccountId}/customaudiences`,
        body: {
          name: spec.name,
          description: spec.description,
          subtype: 'CUSTOM',
          customer_file_source: 'USER_PROVIDED_ONLY',
        },
      });
    },

    async updateAudience(ctx, audienceId, spec) {
      await http.request(ctx, { method: 'POST', url: `${graph}/${audienceId}`, body: spec });
    },

    async readAudience(ctx, audienceId) {
      const fields =
        'id,name,approximate_count_lower_bound,approximate_count_upper_bound,operation_status,delivery_status';
      const a = await http.request<{
        id: string;
        name: string;
        approximate_count_lower_bound?: number;
        approximate_count_upper_bound?: number;
        operation_status?: { code: number; description: string };
        delivery_status?: { code: number; description: string };
      }>(ctx, { url: `${graph}/${audienceId}?fields=${fields}` });
      // operation_status 200 is normal (471: flagged); delivery_status 200 ready, 300 too small.
      const problem =
        a.operation_status && a.operation_status.code !== 200
          ? a.operation_status.description
          : a.delivery_status && a.delivery_status.code !== 200
            ? a.delivery_status.description
            : null;
      const count = (n: number | undefined) => (typeof n === 'number' && n >= 0 ? n : null);
      return {
        id: a.id,
        name: a.name,
        matchedLowerBound: count(a.approximate_count_lower_bound),
        matchedUpperBound: count(a.approximate_count_upper_bound),
        problem,
      };
    },

    async addMembers(ctx, audienceId, hashes) {
      const r = await http.request<UsersReply>(ctx, {
        method: 'POST',
        url: `${graph}/${audienceId}/users`,
        body: members(hashes),
      });
      return { received: r.num_received ?? hashes.length, invalid: r.num_invalid_entries ?? 0 };
    },

    async removeMembers(ctx, audienceId, hashes) {
      const r = await http.request<UsersReply>(ctx, {
        method: 'DELETE',
        url: `${graph}/${audienceId}/users`,
        body: members(hashes),
      });
      return { received: r.num_received ?? hashes.length, invalid: r.num_invalid_entries ?? 0 };
    },

    campaigns: metaCampaignApi(http, graph),
  };
}
