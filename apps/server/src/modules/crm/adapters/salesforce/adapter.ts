import type { SalesforceConfig } from '../../../../config/env.ts';
import { createVendorHttp, VendorAuthError, VendorError } from '../../../integrations/vendor-http.ts';
import type { RetryPolicy } from '../../../integrations/vendor-http.ts';
import type { AdapterOptions } from '../../../integrations/registry.ts';
import type {
  AdapterContext,
  CrmAdapter,
  CrmPage,
  OAuthCredentials,
  RemoteAccount,
  RemoteActivityCount,
  RemoteContact,
  RemoteField,
  RemoteList,
  RemoteListMember,
  RemoteOpportunity,
  RemoteOwner,
  RemoteStageChange,
  WriteBackItem,
} from '../../port.ts';
import { mergeByTime } from '../../merge-by-time.ts';
import { salesforceAdFields } from './ad-fields.ts';
import { firstActivityCounts } from './first-activity-counts.ts';
import { createApiBudget, SALESFORCE_LIMIT_EXCEEDED_MESSAGE, SalesforceBudgetError } from './api-budget.ts';

/**
 * Salesforce (REST API, SOQL) as a CRM source. Facts: API-NOTES.md §5. Every listing is one SOQL
 * query ordered by SystemModstamp and walked with the `nextRecordsUrl` Salesforce returns until
 * `done`. Incremental reads ask for `SystemModstamp >= since` (not `>`): a crash between two
 * records of the same second then reads that second again, and the upserts make it harmless.
 */

export const SALESFORCE_SCOPES = ['api', 'refresh_token', 'id'];
/** The campaign Rally writes superprospects into, and their member status there. */
export const RALLY_CAMPAIGN = 'Rally superprospects';
export const SUPERPROSPECT_STATUS = 'Superprospect';
export const SALESFORCE_API_DISABLED_MESSAGE =
  'Salesforce refuses API access to this org or user (API_DISABLED_FOR_ORG): the org\'s edition must include the API and the connecting user\'s profile needs "API Enabled". Reconnect Salesforce once it is enabled.';
export const SALESFORCE_SCOPE_MESSAGE =
  'Salesforce did not grant the "api" and "refresh_token" scopes Rally asks for: check the connected app\'s OAuth scopes, then connect again.';
export const SALESFORCE_REVOKED_MESSAGE =
  "Salesforce no longer accepts Rally's access (it was revoked, or the refresh token expired). Reconnect Salesforce in Settings › Connections.";

type TokenReply = {
  access_token: string;
  scope?: string;
  refresh_token?: string | null;
  instance_url?: string | null;
  id?: string;
  issued_at?: string;
};
type QueryReply<T> = { totalSize: number; done: boolean; nextRecordsUrl?: string; records: T[] };
type SfError = { message?: string; errorCode?: string }[];

type Row = Record<string, unknown> & { Id: string };

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);
const bool = (v: unknown): boolean => v === true;

/** Salesforce's UTC form whose every part is in range for any month (days 29-31 take the long way). */
const SF_UTC =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}\+0000$/;

/** "2024-05-20T20:49:32.000+0000" → ISO 8601 (Date.parse does not read +0000). */
export function sfTimeToIso(v: unknown): string | null {
  if (typeof v !== 'string' || !v) return null;
  // Already ISO but for its zone (issue 43: parsing and printing every record's time was about a
  // seventh of the Salesforce sync's own CPU); the same text as the long way.
  if (SF_UTC.test(v)) return `${v.slice(0, 23)}Z`;
  const ms = Date.parse(v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}
/** An ISO time as a SOQL datetime literal (UTC, no quotes). */
const soqlTime = (iso: string) => new Date(iso).toISOString().replace(/\.\d{3}Z$/, 'Z');
/** A SOQL string literal. */
export const soqlString = (v: string) => `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;

function errorCodes(body: string): string[] {
  try {
    const parsed = JSON.parse(body) as SfError;
    return Array.isArray(parsed) ? parsed.flatMap((e) => (e.errorCode ? [e.errorCode] : [])) : [];
  } catch {
    return [];
  }
}

export function createSalesforceAdapter(
  cfg: SalesforceConfig,
  opts: {
    retry?: Partial<RetryPolicy>;
    loginOrigins?: AdapterOptions['loginOrigins'];
    now?: () => number;
  } = {},
): CrmAdapter {
  const budget = createApiBudget(opts.now);
  const login = cfg.authUrl.replace(/\/+$/, '');
  /** The login host of a connection (chosen when connecting), where the server's calls go. */
  const loginOf = (chosen: string | null | undefined) => {
    const origin = (chosen ?? login).replace(/\/+$/, '');
    return opts.loginOrigins?.[origin] ?? origin;
  };

  function app() {
    if (!cfg.clientId || !cfg.clientSecret) {
      throw new Error(
        'Salesforce is not set up on this server: the operator must set SALESFORCE_CLIENT_ID and SALESFORCE_CLIENT_SECRET.',
      );
    }
    return { clientId: cfg.clientId, clientSecret: cfg.clientSecret };
  }

  const credentialsFrom = (
    reply: TokenReply,
    previous?: OAuthCredentials,
    loginUrl?: string,
  ): OAuthCredentials => ({
    kind: 'oauth',
    accessToken: reply.access_token,
    // A refresh returns no refresh token: the first one stays valid.
    refreshToken: reply.refresh_token ?? previous?.refreshToken ?? null,
    // Salesforce states no expiry (the org's session timeout applies): a 401 tells.
    expiresAt: null,
    instanceUrl: (reply.instance_url ?? previous?.instanceUrl ?? null)?.replace(/\/+$/, '') ?? null,
    loginUrl: loginUrl ?? previous?.loginUrl ?? null,
  });

  const http = createVendorHttp({
    vendor: 'Salesforce',
    retry: opts.retry,
    authorize: (creds) => ({
      authorization: `Bearer ${creds.kind === 'oauth' ? creds.accessToken : ''}`,
    }),
    refresh: async (creds) => {
      const { clientId, clientSecret } = app();
      const reply = await http.raw<TokenReply>({
        method: 'POST',
        url: `${loginOf(creds.kind === 'oauth' ? creds.loginUrl : null)}/services/oauth2/token`,
        body: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: creds.refreshToken ?? '',
          client_id: clientId,
          client_secret: clientSecret,
        }),
      });
      return credentialsFrom(reply, creds);
    },
    // Too many long requests at once (ConcurrentRequests): 403 REQUEST_LIMIT_EXCEEDED, not 429,
    // waited out. Over the org's daily allocation (TotalRequests) is not retried: it will not come
    // back in minutes (`call` stops the run; a later one resumes from the stored cursors).
    classify: async (res) => {
      if (res.status !== 403) return null;
      const body = await res.text();
      return errorCodes(body).includes('REQUEST_LIMIT_EXCEEDED') && !body.includes('TotalRequests')
        ? { kind: 'rate_limit', waitMs: null }
        : null;
    },
    // Every reply says how much of the org's daily allocation is used (Sforce-Limit-Info).
    observe: (ctx, res) => budget.observe(ctx, res.headers),
    revokedMessage: SALESFORCE_REVOKED_MESSAGE,
  });

  /**
   * An API call where an org without API access ends the connection like a revoked token would
   * (retrying cannot help): the connection becomes inactive with the reason.
   */
  async function call<T>(ctx: AdapterContext, req: Parameters<typeof http.request>[1]): Promise<T> {
    // Nearly at the org's daily allocation: stop before the org's other integrations run out.
    budget.check(ctx);
    try {
      return await http.request<T>(ctx, req);
    } catch (err) {
      if (
        err instanceof VendorError &&
        err.status === 403 &&
        errorCodes(err.body).includes('REQUEST_LIMIT_EXCEEDED') &&
        err.body.includes('TotalRequests')
      ) {
        throw new SalesforceBudgetError(SALESFORCE_LIMIT_EXCEEDED_MESSAGE);
      }
      if (
        err instanceof VendorError &&
        err.status === 403 &&
        errorCodes(err.body).includes('API_DISABLED_FOR_ORG')
      ) {
        throw new VendorAuthError(SALESFORCE_API_DISABLED_MESSAGE);
      }
      throw err;
    }
  }

  function base(ctx: AdapterContext): string {
    const creds = ctx.credentials();
    const instance = creds.kind === 'oauth' ? creds.instanceUrl : null;
    if (!instance) throw new Error('Salesforce credentials carry no instance URL: reconnect Salesforce.');
    return instance;
  }

  /** Runs a SOQL query and yields its batches, following nextRecordsUrl until done. */
  async function* query<T extends Row>(
    ctx: AdapterContext,
    soql: string,
    opts2: { all?: boolean } = {},
  ): AsyncGenerator<CrmPage<T>> {
    let url: string | undefined =
      `${base(ctx)}/services/data/${cfg.apiVersion}/${opts2.all ? 'queryAll' : 'query'}?${new URLSearchParams({ q: soql })}`;
    while (url) {
      const reply: QueryReply<T> = await call<QueryReply<T>>(ctx, { url });
      yield { items: reply.records, total: reply.totalSize };
      // nextRecordsUrl is relative to the instance; the instance may change after a refresh.
      url = !reply.done && reply.nextRecordsUrl ? `${base(ctx)}${reply.nextRecordsUrl}` : undefined;
    }
  }

  async function all<T extends Row>(
    ctx: AdapterContext,
    soql: string,
    o: { all?: boolean } = {},
  ): Promise<T[]> {
    const out: T[] = [];
    for await (const page of query<T>(ctx, soql, o)) out.push(...page.items);
    return out;
  }

  /** `WHERE SystemModstamp >= since` (plus `extra`) ORDER BY SystemModstamp. */
  const incremental = (
    select: string,
    since: string | null,
    extra: string[] = [],
    field = 'SystemModstamp',
  ) => {
    const where = [...extra, ...(since ? [`${field} >= ${soqlTime(since)}`] : [])];
    return `${select}${where.length ? ` WHERE ${where.join(' AND ')}` : ''} ORDER BY ${field} ASC`;
  };

  async function* mapPages<T extends Row, U>(
    pages: AsyncIterable<CrmPage<T>>,
    map: (r: T) => U | null,
  ): AsyncGenerator<CrmPage<U>> {
    for await (const page of pages) {
      yield { items: page.items.flatMap((r) => map(r) ?? []), total: page.total };
    }
  }

  /** The page's OpportunityContactRoles (200 opportunity ids a query, to keep the URL short). */
  async function withContactRoles(
    ctx: AdapterContext,
    opps: RemoteOpportunity[],
  ): Promise<RemoteOpportunity[]> {
    const roles = new Map<string, RemoteOpportunity['contactRoles']>(opps.map((o) => [o.externalId, []]));
    for (let i = 0; i < opps.length; i += 200) {
      const ids = opps
        .slice(i, i + 200)
        .map((o) => soqlString(o.externalId))
        .join(', ');
      const rows = await all<Row>(
        ctx,
        `SELECT Id, OpportunityId, ContactId, Role, IsPrimary FROM OpportunityContactRole WHERE OpportunityId IN (${ids})`,
      );
      for (const r of rows) {
        const contact = str(r.ContactId);
        const list = roles.get(String(r.OpportunityId));
        if (contact && list)
          list.push({ contactExternalId: contact, role: str(r.Role) ?? '', isPrimary: bool(r.IsPrimary) });
      }
    }
    return opps.map((o) => ({ ...o, contactRoles: roles.get(o.externalId) ?? [] }));
  }

  const OPPORTUNITY_FIELDS = [
    'Id',
    'Name',
    'AccountId',
    'OwnerId',
    'StageName',
    'Amount',
    'CloseDate',
    'Probability',
    'IsClosed',
    'IsWon',
    'IsDeleted',
    'CreatedDate',
    'SystemModstamp',
  ];

  return {
    source: 'salesforce',
    auth: 'oauth',
    adFields: salesforceAdFields({
      call,
      base: (ctx) => `${base(ctx)}/services/data/${cfg.apiVersion}`,
    }),

    // PKCE (S256) on every connect: orgs and apps may require it (External Client Apps, the only
    // new apps from Spring '26, and orgs with "Require PKCE"); where it is optional it still binds
    // the code to this flow. The browser goes to the public login host, never a test stand-in.
    authorizeUrl({ state, redirectUri, loginUrl, codeChallenge }) {
      const { clientId } = app();
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        scope: SALESFORCE_SCOPES.join(' '),
        state,
        prompt: 'login consent',
        ...(codeChallenge ? { code_challenge: codeChallenge, code_challenge_method: 'S256' } : {}),
      });
      return `${(loginUrl ?? login).replace(/\/+$/, '')}/services/oauth2/authorize?${q}`;
    },

    async exchangeCode({ code, redirectUri, loginUrl, codeVerifier }) {
      const { clientId, clientSecret } = app();
      const reply = await http.raw<TokenReply>({
        method: 'POST',
        url: `${loginOf(loginUrl)}/services/oauth2/token`,
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code,
          client_id: clientId,
          client_secret: clientSecret,
          redirect_uri: redirectUri,
          ...(codeVerifier ? { code_verifier: codeVerifier } : {}),
        }),
      });
      // A connected app may grant fewer scopes than asked for: without api there is nothing to sync.
      const granted = new Set((reply.scope ?? '').split(/\s+/));
      if (reply.scope && (!granted.has('api') || !granted.has('refresh_token'))) {
        throw new Error(SALESFORCE_SCOPE_MESSAGE);
      }
      return credentialsFrom(reply, undefined, loginUrl);
    },

    async revoke(creds) {
      if (creds.kind !== 'oauth') return;
      // Revoking the refresh token ends its sessions too.
      await http.raw({
        method: 'POST',
        url: `${loginOf(creds.loginUrl)}/services/oauth2/revoke`,
        body: new URLSearchParams({ token: creds.refreshToken ?? creds.accessToken }),
      });
    },

    async whoami(ctx) {
      const [org] = await all<Row>(ctx, 'SELECT Id, Name FROM Organization LIMIT 1');
      // Lightning's record URL on the org's own host: /lightning/r/{object}/{recordId}/view.
      const creds = ctx.credentials();
      const instance = creds.kind === 'oauth' ? creds.instanceUrl : null;
      return {
        accountName: str(org?.Name) ?? 'Salesforce',
        opportunityUrlTemplate: instance ? `${instance}/lightning/r/Opportunity/{id}/view` : null,
      };
    },

    async stages(ctx) {
      const rows = await all<Row>(
        ctx,
        'SELECT Id, MasterLabel, ApiName, IsActive, IsClosed, IsWon, DefaultProbability, SortOrder FROM OpportunityStage ORDER BY SortOrder ASC',
      );
      return rows.map((r, i) => {
        const label = str(r.MasterLabel) ?? str(r.ApiName) ?? r.Id;
        return {
          pipelineKey: 'default',
          pipelineLabel: 'Opportunities',
          // Opportunity.StageName carries the stage's API name (its label where that is the same).
          key: str(r.ApiName) ?? label,
          label,
          order: num(r.SortOrder) ?? i + 1,
          probability: num(r.DefaultProbability) === null ? null : Math.round(num(r.DefaultProbability) ?? 0),
          isClosed: bool(r.IsClosed),
          isWon: bool(r.IsWon),
          isActive: bool(r.IsActive),
        };
      });
    },

    async recordTypes(ctx) {
      const rows = await all<Row>(
        ctx,
        "SELECT Id, Name, DeveloperName, IsActive FROM RecordType WHERE SobjectType = 'Opportunity' ORDER BY Name ASC",
      );
      return rows.map((r) => ({
        externalId: r.Id,
        name: str(r.Name) ?? r.Id,
        developerName: str(r.DeveloperName) ?? '',
        isActive: bool(r.IsActive),
      }));
    },

    async fields(ctx, object) {
      const type = object === 'opportunity' ? 'Opportunity' : 'Contact';
      const reply = await call<{
        fields: {
          name: string;
          label: string;
          type: string;
          picklistValues?: { value: string; label: string; active?: boolean }[];
        }[];
      }>(ctx, { url: `${base(ctx)}/services/data/${cfg.apiVersion}/sobjects/${type}/describe` });
      return reply.fields.map((f): RemoteField => ({
        name: f.name,
        label: f.label,
        type: f.type,
        options: (f.picklistValues ?? [])
          .filter((p) => p.active !== false)
          .map((p) => ({ value: p.value, label: p.label })),
      }));
    },

    owners(ctx, since) {
      return mapPages(
        query<Row>(
          ctx,
          incremental('SELECT Id, FirstName, LastName, Email, IsActive, SystemModstamp FROM User', since, [
            "UserType = 'Standard'",
          ]),
        ),
        (r): RemoteOwner => ({
          externalId: r.Id,
          firstName: str(r.FirstName) ?? '',
          lastName: str(r.LastName) ?? '',
          email: str(r.Email),
          isActive: bool(r.IsActive),
          updatedAt: sfTimeToIso(r.SystemModstamp),
        }),
      );
    },

    accounts(ctx, since) {
      return mapPages(
        // queryAll: deleted accounts come too (IsDeleted), so counts can leave them out.
        query<Row>(
          ctx,
          incremental('SELECT Id, Name, Website, OwnerId, IsDeleted, SystemModstamp FROM Account', since),
          { all: true },
        ),
        (r): RemoteAccount | null => {
          const updatedAt = sfTimeToIso(r.SystemModstamp);
          if (!updatedAt) return null;
          return {
            externalId: r.Id,
            name: str(r.Name) ?? r.Id,
            website: str(r.Website),
            ownerExternalId: str(r.OwnerId),
            updatedAt,
            isDeleted: bool(r.IsDeleted),
          };
        },
      );
    },

    contacts(ctx, since) {
      // Contacts and Leads (the people Salesforce e-mails; issue 38 writes both), each read in
      // SystemModstamp order and merged in that order, so the phase's cursor stays safe after a
      // crash. A converted lead has become a contact: it counts as deleted.
      const person = (r: Row): RemoteContact | null => {
        const updatedAt = sfTimeToIso(r.SystemModstamp);
        if (!updatedAt) return null;
        return {
          externalId: r.Id,
          email: str(r.Email),
          firstName: str(r.FirstName) ?? '',
          lastName: str(r.LastName) ?? '',
          title: str(r.Title) ?? '',
          accountExternalId: str(r.AccountId),
          ownerExternalId: str(r.OwnerId),
          updatedAt,
          isDeleted: bool(r.IsDeleted) || bool(r.IsConverted),
          // "Email Opt Out": a boolean on both Contact and Lead (Object Reference for the Salesforce
          // Platform, Contact and Lead: HasOptedOutOfEmail); SOQL returns only the fields selected.
          optedOut: bool(r.HasOptedOutOfEmail),
        };
      };
      return mergeByTime(
        [
          mapPages(
            query<Row>(
              ctx,
              incremental(
                'SELECT Id, Email, FirstName, LastName, Title, AccountId, OwnerId, HasOptedOutOfEmail, IsDeleted, SystemModstamp FROM Contact',
                since,
              ),
              { all: true },
            ),
            person,
          ),
          mapPages(
            query<Row>(
              ctx,
              incremental(
                'SELECT Id, Email, FirstName, LastName, Title, OwnerId, HasOptedOutOfEmail, IsConverted, IsDeleted, SystemModstamp FROM Lead',
                since,
              ),
              { all: true },
            ),
            person,
          ),
        ],
        (c) => c.updatedAt,
      );
    },

    async *opportunities(ctx, since) {
      // RecordTypeId exists only in orgs with opportunity record types, CurrencyIsoCode only in
      // multi-currency orgs (else INVALID_FIELD naming it): asked for, and left out when refused.
      let fields = [...OPPORTUNITY_FIELDS, 'RecordTypeId', 'CurrencyIsoCode'];
      const map = (r: Row): RemoteOpportunity | null => {
        const updatedAt = sfTimeToIso(r.SystemModstamp);
        const createdAt = sfTimeToIso(r.CreatedDate);
        if (!updatedAt || !createdAt) return null;
        return {
          externalId: r.Id,
          name: str(r.Name) ?? r.Id,
          accountExternalId: str(r.AccountId),
          accountName: null,
          amount: num(r.Amount),
          currency: str(r.CurrencyIsoCode),
          pipelineKey: 'default',
          stageKey: str(r.StageName) ?? '',
          closeDate: str(r.CloseDate),
          createdAt,
          updatedAt,
          ownerExternalId: str(r.OwnerId),
          recordTypeExternalId: str(r.RecordTypeId),
          isClosed: bool(r.IsClosed),
          isWon: bool(r.IsWon),
          probability: num(r.Probability) === null ? null : Math.round(num(r.Probability) ?? 0),
          isDeleted: bool(r.IsDeleted),
        };
      };
      for (;;) {
        // queryAll: deleted opportunities come too (IsDeleted), so reports can leave them out.
        const pages = query<Row>(ctx, incremental(`SELECT ${fields.join(', ')} FROM Opportunity`, since), {
          all: true,
        });
        try {
          for await (const page of mapPages(pages, map)) {
            yield { items: await withContactRoles(ctx, page.items), total: page.total };
          }
          return;
        } catch (err) {
          const refused =
            err instanceof VendorError && err.status === 400 && errorCodes(err.body).includes('INVALID_FIELD')
              ? ['RecordTypeId', 'CurrencyIsoCode'].find(
                  (f) => fields.includes(f) && err.body.includes(`'${f}'`),
                )
              : undefined;
          if (!refused) throw err;
          fields = fields.filter((f) => f !== refused);
        }
      }
    },

    async *stageHistory(ctx, since) {
      // OpportunityHistory has a row per change of stage, amount or close date, each with the stage
      // after it; a row whose stage is the one before it is no stage move.
      const last = new Map<string, string>();
      const pages = query<Row>(
        ctx,
        incremental(
          'SELECT Id, OpportunityId, StageName, CreatedDate FROM OpportunityHistory',
          since,
          [],
          'CreatedDate',
        ),
      );
      for await (const page of pages) {
        const items: RemoteStageChange[] = [];
        for (const r of page.items) {
          const opp = str(r.OpportunityId);
          const stage = str(r.StageName);
          const at = sfTimeToIso(r.CreatedDate);
          if (!opp || !stage || !at) continue;
          const before = last.get(opp);
          last.set(opp, stage);
          if (before === stage) continue;
          items.push({
            externalId: r.Id,
            opportunityExternalId: opp,
            fromStageKey: before ?? null,
            toStageKey: stage,
            changedAt: at,
            updatedAt: at,
          });
        }
        yield { items, total: page.total };
      }
    },

    lists(ctx, since) {
      return mapPages(
        query<Row>(
          ctx,
          incremental(
            'SELECT Id, Name, IsActive, NumberOfContacts, NumberOfLeads, SystemModstamp FROM Campaign',
            since,
          ),
        ),
        (r): RemoteList => ({
          externalId: r.Id,
          name: str(r.Name) ?? r.Id,
          kind: 'campaign',
          memberType: 'contact',
          memberCount: (num(r.NumberOfContacts) ?? 0) + (num(r.NumberOfLeads) ?? 0),
          isActive: bool(r.IsActive),
          updatedAt: sfTimeToIso(r.SystemModstamp),
        }),
      );
    },

    listMembers(ctx, listExternalId) {
      return mapPages(
        query<Row>(
          ctx,
          `SELECT Id, ContactId, LeadId, Status, CreatedDate FROM CampaignMember WHERE CampaignId = ${soqlString(listExternalId)} ORDER BY CreatedDate ASC`,
        ),
        (r): RemoteListMember | null => {
          const member = str(r.ContactId) ?? str(r.LeadId);
          return member
            ? { memberExternalId: member, status: str(r.Status) ?? '', addedAt: sfTimeToIso(r.CreatedDate) }
            : null;
        },
      );
    },

    async writeBack(ctx, items: WriteBackItem[], known: string | null) {
      const api = `${base(ctx)}/services/data/${cfg.apiVersion}`;
      let campaign = known;
      if (campaign) {
        const [found] = await all<Row>(ctx, `SELECT Id FROM Campaign WHERE Id = ${soqlString(campaign)}`);
        if (!found) campaign = null; // deleted in Salesforce: made again below
      }
      if (!campaign) {
        const [byName] = await all<Row>(
          ctx,
          `SELECT Id FROM Campaign WHERE Name = ${soqlString(RALLY_CAMPAIGN)} ORDER BY CreatedDate ASC LIMIT 1`,
        );
        campaign = byName?.Id ?? null;
      }
      if (!campaign) {
        const made = await call<{ id: string }>(ctx, {
          method: 'POST',
          url: `${api}/sobjects/Campaign`,
          body: { Name: RALLY_CAMPAIGN, IsActive: true, Type: 'Advertisement' },
        });
        campaign = made.id;
      }
      const statuses = await all<Row>(
        ctx,
        `SELECT Id, Label FROM CampaignMemberStatus WHERE CampaignId = ${soqlString(campaign)}`,
      );
      if (!statuses.some((st) => st.Label === SUPERPROSPECT_STATUS)) {
        await call(ctx, {
          method: 'POST',
          url: `${api}/sobjects/CampaignMemberStatus`,
          body: { CampaignId: campaign, Label: SUPERPROSPECT_STATUS, HasResponded: true, SortOrder: 10 },
        });
      }
      // Idempotent: people already in the campaign are not added again. A member is a Contact
      // (ContactId) or a Lead (LeadId): Rally's contacts include the org's leads (ids 00Q…).
      const members = new Set(
        (
          await all<Row>(
            ctx,
            `SELECT Id, ContactId, LeadId FROM CampaignMember WHERE CampaignId = ${soqlString(campaign)}`,
          )
        ).flatMap((m) => str(m.ContactId) ?? str(m.LeadId) ?? []),
      );
      const fresh = [...new Set(items.map((i) => i.contactExternalId))].filter((id) => !members.has(id));
      let written = 0;
      // The composite API takes 200 records a call.
      for (let i = 0; i < fresh.length; i += 200) {
        const results = await call<{ success: boolean }[]>(ctx, {
          method: 'POST',
          url: `${api}/composite/sobjects`,
          body: {
            allOrNone: false,
            records: fresh.slice(i, i + 200).map((person) => ({
              attributes: { type: 'CampaignMember' },
              CampaignId: campaign,
              ...(person.startsWith('00Q') ? { LeadId: person } : { ContactId: person }),
              Status: SUPERPROSPECT_STATUS,
            })),
          },
        });
        written += results.filter((r) => r.success).length;
      }
      return { target: campaign, written };
    },

    async *activityCounts(ctx, since) {
      if (!since) {
        yield* firstActivityCounts(
          (object, fields) =>
            query<Row>(
              ctx,
              incremental(`SELECT ${fields} FROM ${object}`, null, ['WhoId != null', 'IsDeleted = false']),
              {
                all: true,
              },
            ),
          sfTimeToIso,
        );
        return;
      }
      // Tasks changed since the cursor name the contacts whose totals moved; their totals are then
      // counted over all their tasks (calls, e-mails, other tasks) and events (meetings).
      // queryAll: archived tasks and events (Salesforce archives activities over a year old; query
      // leaves them out) still count, and a deleted task moves its contact's totals too.
      const changed = query<Row>(
        ctx,
        incremental('SELECT Id, WhoId, SystemModstamp FROM Task', since, ['WhoId != null']),
        { all: true },
      );
      for await (const page of changed) {
        const who = [...new Set(page.items.flatMap((r) => str(r.WhoId) ?? []))];
        const changedAt = sfTimeToIso(page.items.at(-1)?.SystemModstamp);
        const items: RemoteActivityCount[] = [];
        for (let i = 0; i < who.length; i += 200) {
          const ids = who
            .slice(i, i + 200)
            .map(soqlString)
            .join(', ');
          const totals = new Map<string, RemoteActivityCount>();
          const bump = (contact: string, type: string, at: string | null) => {
            const key = `${contact}\u0000${type}`;
            const t = totals.get(key) ?? {
              contactExternalId: contact,
              activityType: type,
              count: 0,
              lastActivityAt: null,
              changedAt,
            };
            t.count += 1;
            if (at && (!t.lastActivityAt || at > t.lastActivityAt)) t.lastActivityAt = at;
            totals.set(key, t);
          };
          for (const t of await all<Row>(
            ctx,
            `SELECT Id, WhoId, TaskSubtype, CreatedDate FROM Task WHERE WhoId IN (${ids}) AND IsDeleted = false`,
            { all: true },
          )) {
            const subtype = str(t.TaskSubtype);
            bump(
              String(t.WhoId),
              subtype === 'Call' ? 'Call' : subtype === 'Email' ? 'Email' : 'Task',
              sfTimeToIso(t.CreatedDate),
            );
          }
          for (const e of await all<Row>(
            ctx,
            `SELECT Id, WhoId, CreatedDate FROM Event WHERE WhoId IN (${ids}) AND IsDeleted = false`,
            { all: true },
          )) {
            bump(String(e.WhoId), 'Meeting', sfTimeToIso(e.CreatedDate));
          }
          items.push(...totals.values());
        }
        yield { items, total: page.total };
      }
    },
  };
}
