import { createVendorHttp, VendorAuthError, VendorError } from '../../../integrations/vendor-http.ts';
import type { RetryPolicy, VendorRequest } from '../../../integrations/vendor-http.ts';
import type {
  AdapterContext,
  ClientCredentials,
  CrmAdapter,
  CrmPage,
  RemoteContact,
  RemoteList,
  RemoteListMember,
} from '../../port.ts';
import { marketoAdFields } from './ad-fields.ts';

/**
 * Marketo (REST API, client credentials) as a CRM source: leads and static lists. Facts:
 * API-NOTES.md §6. Each connection brings its own client id, secret and REST base URL
 * (`https://<munchkin>.mktorest.com/rest`); the identity service beside it gives tokens of at most
 * an hour, renewed here before they run out and again when Marketo calls one invalid or expired
 * (601/602, inside an HTTP 200). Failures come as `success:false` in a 200: 606/615 are waited out
 * like a 429, 601/602 renew the token once, anything else is a VendorError naming the code. The
 * identity service refusing the credentials (HTTP 401) means the API user was removed: the
 * connection becomes inactive with the reason.
 *
 * Marketo has no opportunities, owners or accounts. Its lead database cannot be listed by modified
 * time through REST (that needs the bulk export), so contacts are the members of the static lists,
 * read whole each sync; deleted leads come from the "Delete Lead" activities
 * (`activities/deletedleads.json` from a `pagingtoken.json` date token).
 */

export const MARKETO_REVOKED_MESSAGE =
  "Marketo no longer accepts Rally's API credentials (the API user or its role was removed, or the secret changed). Enter new credentials in Settings › Integrations › Marketo.";

/** Renew a token this long before Marketo says it expires. */
const EARLY_MS = 60_000;
const LEAD_FIELDS = 'email,firstName,lastName,title,company,updatedAt';

type Envelope<T> = {
  requestId?: string;
  success: boolean;
  result?: T[];
  errors?: { code: string; message: string }[];
  warnings?: string[];
  moreResult?: boolean;
  nextPageToken?: string;
};
type TokenReply = { access_token: string; expires_in?: number; scope?: string };
type Lead = {
  id: number;
  email?: string | null;
  firstName?: string | null;
  lastName?: string | null;
  title?: string | null;
  company?: string | null;
  updatedAt?: string | null;
};

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
/** Marketo times, including asset ones like 2017-07-27T01:38:33Z+0000. */
const iso = (v: unknown): string | null => {
  const s = str(v);
  if (!s) return null;
  const ms = Date.parse(s.replace(/Z\+0000$/, 'Z'));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};

/** The REST base URL as we store it: no trailing slash, ending in /rest. */
export function normalizeMarketoBase(raw: string): string {
  const u = new URL(raw.trim());
  const path = u.pathname.replace(/\/+$/, '');
  u.pathname = path.endsWith('/rest') ? path : `${path}/rest`;
  u.search = '';
  u.hash = '';
  return u.toString().replace(/\/+$/, '');
}
const identityUrl = (base: string) => `${base.replace(/\/rest$/, '')}/identity/oauth/token`;

/** Codes Marketo puts inside a 200 (API-NOTES §6). */
const AUTH_CODES = new Set(['600', '601', '602']);
const RATE_CODES = new Set(['606', '615']);

export function createMarketoAdapter(opts: { retry?: Partial<RetryPolicy> } = {}): CrmAdapter {
  const http = createVendorHttp({
    vendor: 'Marketo',
    retry: opts.retry,
    authorize: (creds) => ({
      authorization: `Bearer ${creds.kind === 'client_credentials' ? (creds.accessToken ?? '') : ''}`,
    }),
    classify: async (res) => {
      if (res.status !== 200) return null;
      let body: Envelope<unknown>;
      try {
        body = JSON.parse(await res.text()) as Envelope<unknown>;
      } catch {
        return null;
      }
      if (body.success !== false) return null;
      const code = String(body.errors?.[0]?.code ?? '');
      if (AUTH_CODES.has(code)) return { kind: 'auth' };
      // 100 calls per 20 s (606) or 10 at once (615): Marketo sends no wait hint.
      if (RATE_CODES.has(code)) return { kind: 'rate_limit', waitMs: code === '606' ? 20_000 : 2_000 };
      // The daily quota (607) comes back at midnight (US Central): more than any wait we accept, so
      // the job fails and a later run goes on.
      if (code === '607') return { kind: 'rate_limit', waitMs: 24 * 3_600_000 };
      return null;
    },
    revokedMessage: MARKETO_REVOKED_MESSAGE,
  });

  /** A new token from the identity service; 401 means the credentials are no good. */
  async function token(creds: ClientCredentials, interactive = false): Promise<ClientCredentials> {
    const q = new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: creds.clientId,
      client_secret: creds.clientSecret,
    });
    let reply: TokenReply;
    try {
      reply = await http.raw<TokenReply>(
        { url: `${identityUrl(creds.baseUrl)}?${q}` },
        undefined,
        interactive,
      );
    } catch (err) {
      if (err instanceof VendorError && (err.status === 401 || err.status === 403)) {
        throw new VendorAuthError(MARKETO_REVOKED_MESSAGE);
      }
      throw err;
    }
    if (!reply?.access_token) throw new VendorError('Marketo', 502, 'the identity service gave no token');
    const life = Number(reply.expires_in);
    return {
      ...creds,
      accessToken: reply.access_token,
      expiresAt: new Date(
        Date.now() + (Number.isFinite(life) && life > 0 ? life : 3600) * 1000,
      ).toISOString(),
    };
  }

  function clientCreds(ctx: AdapterContext): ClientCredentials {
    const creds = ctx.credentials();
    if (creds.kind !== 'client_credentials') throw new Error('Marketo needs client credentials');
    return creds;
  }

  async function fresh(ctx: AdapterContext): Promise<ClientCredentials> {
    const creds = clientCreds(ctx);
    if (creds.accessToken && creds.expiresAt && Date.parse(creds.expiresAt) - EARLY_MS > Date.now()) {
      return creds;
    }
    const next = await token(creds);
    await ctx.saveCredentials(next);
    return next;
  }

  /**
   * One REST call: a token that is about to expire is renewed first; one that Marketo refuses
   * anyway (601/602) is renewed once more and the call repeated.
   */
  async function call<T>(ctx: AdapterContext, path: string, q: Record<string, string> = {}, body?: unknown) {
    const creds = await fresh(ctx);
    const req: VendorRequest = {
      url: `${creds.baseUrl}${path}${Object.keys(q).length ? `?${new URLSearchParams(q)}` : ''}`,
      ...(body === undefined ? {} : { method: 'POST' as const, body }),
    };
    let reply: Envelope<T>;
    try {
      reply = await http.request<Envelope<T>>(ctx, req);
    } catch (err) {
      if (!(err instanceof VendorAuthError)) throw err;
      await ctx.saveCredentials(await token(clientCreds(ctx)));
      reply = await http.request<Envelope<T>>(ctx, req);
    }
    if (reply.success === false) {
      const e = reply.errors?.[0];
      throw new VendorError('Marketo', 200, `error ${e?.code ?? '?'}: ${e?.message ?? 'request failed'}`);
    }
    return reply;
  }

  /** A Lead Database listing, page after page by nextPageToken. */
  async function* paged<T>(
    ctx: AdapterContext,
    path: string,
    q: Record<string, string>,
  ): AsyncGenerator<T[]> {
    let next: string | undefined;
    for (;;) {
      const body: Envelope<T> = await call<T>(ctx, path, {
        ...q,
        batchSize: '300',
        ...(next ? { nextPageToken: next } : {}),
      });
      yield body.result ?? [];
      next = body.nextPageToken;
      if (!next || body.moreResult === false) return;
    }
  }

  const toContact = (l: Lead): RemoteContact | null => {
    const updatedAt = iso(l.updatedAt);
    if (!updatedAt) return null;
    return {
      externalId: String(l.id),
      email: str(l.email),
      firstName: str(l.firstName) ?? '',
      lastName: str(l.lastName) ?? '',
      title: str(l.title) ?? '',
      accountExternalId: null,
      ownerExternalId: null,
      updatedAt,
    };
  };

  async function* staticLists(ctx: AdapterContext) {
    for await (const page of paged<{ id: number; name: string; updatedAt?: string }>(
      ctx,
      '/v1/lists.json',
      {},
    )) {
      yield page;
    }
  }

  return {
    source: 'marketo',
    auth: 'client_credentials',
    adFields: marketoAdFields(call),

    async connect(creds) {
      // Only the connect form calls this: a user is waiting (no retries, a short time limit).
      return token({ ...creds, baseUrl: normalizeMarketoBase(creds.baseUrl) }, true);
    },

    async whoami(ctx) {
      // A REST call: checks the token and that the API role may read lists.
      await call(ctx, '/v1/lists.json', { batchSize: '1' });
      const host = new URL(clientCreds(ctx).baseUrl).host;
      return { accountName: `Marketo ${host.replace(/\.mktorest\.com$/, '')}` };
    },

    async *owners(): AsyncGenerator<CrmPage<never>> {
      // Marketo has no record owners.
    },

    async *contacts(ctx) {
      const seen = new Set<number>();
      for await (const lists of staticLists(ctx)) {
        for (const list of lists) {
          for await (const leads of paged<Lead>(ctx, `/v1/lists/${list.id}/leads.json`, {
            fields: LEAD_FIELDS,
          })) {
            const items = leads.filter((l) => !seen.has(l.id)).flatMap((l) => toContact(l) ?? []);
            for (const l of leads) seen.add(l.id);
            if (items.length) yield { items, total: null };
          }
        }
      }
    },

    async *deletedContacts(ctx, since) {
      // Marketo deletes leads for good; each deletion leaves a "Delete Lead" activity, read from a
      // date paging token on. The reply always carries a token (for later); moreResult says whether
      // there is more now.
      let next = (await call<never>(ctx, '/v1/activities/pagingtoken.json', { sinceDatetime: since }))
        .nextPageToken;
      while (next) {
        const body: Envelope<{ leadId?: number }> = await call<{ leadId?: number }>(
          ctx,
          '/v1/activities/deletedleads.json',
          { nextPageToken: next, batchSize: '300' },
        );
        const ids = (body.result ?? []).flatMap((a) => (a.leadId === undefined ? [] : [String(a.leadId)]));
        if (ids.length) yield { items: ids, total: null };
        if (body.moreResult !== true) return;
        next = body.nextPageToken;
      }
    },

    async *lists(ctx) {
      for await (const page of staticLists(ctx)) {
        yield {
          total: null,
          items: page.map((l): RemoteList => ({
            externalId: String(l.id),
            name: l.name,
            kind: 'static_list',
            memberType: 'lead',
            memberCount: null,
            isActive: true,
            updatedAt: iso(l.updatedAt),
          })),
        };
      }
    },

    async *listMembers(ctx, listExternalId): AsyncGenerator<CrmPage<RemoteListMember>> {
      for await (const leads of paged<Lead>(
        ctx,
        `/v1/lists/${encodeURIComponent(listExternalId)}/leads.json`,
        {
          fields: 'id',
        },
      )) {
        yield {
          total: null,
          items: leads.map((l) => ({ memberExternalId: String(l.id), status: '', addedAt: null })),
        };
      }
    },
  };
}
