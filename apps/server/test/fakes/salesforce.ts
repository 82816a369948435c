import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A fake Salesforce on loopback: the OAuth web-server flow (authorize, token with authorization code
 * and refresh, revoke) and the REST API's query endpoint over a minimal SOQL (SELECT … FROM …
 * [WHERE a op b AND …] [ORDER BY f [ASC|DESC]] [LIMIT n]), as API-NOTES.md §5 describes: results in
 * batches with a relative `nextRecordsUrl` until `done`, errors as an array of
 * `{message, errorCode, fields}`, 401 `INVALID_SESSION_ID` for a bad or expired session, 403
 * `REQUEST_LIMIT_EXCEEDED` when over the limit, no `expires_in` in token replies and no new refresh
 * token on refresh.
 *
 * API allocation (issue 40 item 7): every REST reply carries `Sforce-Limit-Info: api-usage=used/max`
 * ("This response header is returned in each request to REST API … api-usage—Specifies the daily API
 * usage for the organization against which the call was made. The first number is the number of API
 * calls used, and the second number is the API limit for the organization": REST API Developer
 * Guide, "Limit Info Header"). The allocation is the org's, for all its integrations, over the last 24
 * hours ("Limits are enforced against the aggregate of all API calls made to the org in a 24-hour
 * period … all users in the org can be temporarily blocked from making additional calls": Salesforce
 * Help, "System Overview: API Usage"); past it every call is refused with 403 and Salesforce's error
 * envelope `[{"message":"TotalRequests Limit exceeded.","errorCode":"REQUEST_LIMIT_EXCEEDED"}]`, not
 * counted. `dailyApiLimit` sets the allocation, `setApiUsage` what the org's other integrations used.
 *
 * Archived activities: `query` leaves out Task and Event records with IsArchived true, `queryAll`
 * returns them ("QueryAll also returns information about archived task and event records": REST API
 * Developer Guide, "QueryAll"; "You cannot use query() as it automatically filters out all records
 * where isArchived is set to true": SOAP API, "queryAll()"). `archive(type, id)` archives one. Tests seed records, change them, expire sessions, revoke access and inject limit
 * replies through the controls returned by `startFakeSalesforce`.
 */

export type SfRecord = Record<string, unknown> & { Id: string };

/** The fields each object has (a query naming another is 400 INVALID_FIELD). */
const SCHEMA: Record<string, string[]> = {
  Organization: ['Id', 'Name'],
  User: [
    'Id',
    'Name',
    'FirstName',
    'LastName',
    'Email',
    'Username',
    'IsActive',
    'UserType',
    'SystemModstamp',
  ],
  Account: [
    'Id',
    'Name',
    'Website',
    'OwnerId',
    'IsDeleted',
    'CreatedDate',
    'LastModifiedDate',
    'SystemModstamp',
  ],
  Contact: [
    'Id',
    'Email',
    'FirstName',
    'LastName',
    'Title',
    'AccountId',
    'OwnerId',
    // "Email Opt Out" (Object Reference: Contact and Lead, HasOptedOutOfEmail, a boolean).
    'HasOptedOutOfEmail',
    'IsDeleted',
    'CreatedDate',
    'LastModifiedDate',
    'SystemModstamp',
  ],
  Opportunity: [
    'Id',
    'Name',
    'AccountId',
    'OwnerId',
    'StageName',
    'Amount',
    'CloseDate',
    'Probability',
    'ForecastCategoryName',
    'IsClosed',
    'IsWon',
    'RecordTypeId',
    'Type',
    'LeadSource',
    'IsDeleted',
    'CreatedDate',
    'LastModifiedDate',
    'SystemModstamp',
  ],
  OpportunityStage: [
    'Id',
    'MasterLabel',
    'ApiName',
    'IsActive',
    'IsClosed',
    'IsWon',
    'DefaultProbability',
    'ForecastCategoryName',
    'SortOrder',
    'SystemModstamp',
  ],
  RecordType: ['Id', 'Name', 'DeveloperName', 'SobjectType', 'IsActive', 'SystemModstamp'],
  OpportunityHistory: [
    'Id',
    'OpportunityId',
    'StageName',
    'Amount',
    'CloseDate',
    'CreatedDate',
    'SystemModstamp',
  ],
  OpportunityContactRole: ['Id', 'OpportunityId', 'ContactId', 'Role', 'IsPrimary', 'SystemModstamp'],
  Lead: [
    'Id',
    'Email',
    'FirstName',
    'LastName',
    'Title',
    'Company',
    'OwnerId',
    'HasOptedOutOfEmail',
    'IsConverted',
    'IsDeleted',
    'CreatedDate',
    'LastModifiedDate',
    'SystemModstamp',
  ],
  Campaign: [
    'Id',
    'Name',
    'IsActive',
    'Type',
    'Status',
    'NumberOfContacts',
    'NumberOfLeads',
    'CreatedDate',
    'SystemModstamp',
  ],
  CampaignMember: ['Id', 'CampaignId', 'ContactId', 'LeadId', 'Status', 'CreatedDate', 'SystemModstamp'],
  Task: [
    'Id',
    'WhoId',
    'TaskSubtype',
    'Subject',
    'ActivityDate',
    'IsArchived',
    'IsDeleted',
    'CreatedDate',
    'SystemModstamp',
  ],
  Event: [
    'Id',
    'WhoId',
    'Subject',
    'ActivityDateTime',
    'IsArchived',
    'IsDeleted',
    'CreatedDate',
    'SystemModstamp',
  ],
  CampaignMemberStatus: ['Id', 'CampaignId', 'Label', 'HasResponded', 'SortOrder', 'SystemModstamp'],
};

/** 3-character key prefixes, so ids look like Salesforce's. */
const PREFIX: Record<string, string> = {
  Organization: '00D',
  User: '005',
  Account: '001',
  Contact: '003',
  Lead: '00Q',
  Opportunity: '006',
  OpportunityStage: '01J',
  RecordType: '012',
  OpportunityHistory: '008',
  OpportunityContactRole: '00K',
  Campaign: '701',
  CampaignMember: '00v',
  Task: '00T',
  Event: '00U',
  CampaignMemberStatus: '01Y',
};

export type SfSeed = {
  orgName?: string;
  records?: Partial<Record<string, Omit<SfRecord, 'Id'>[]>>;
};

export type StartFakeSalesforceOptions = {
  /** A multi-currency org: opportunities have CurrencyIsoCode (otherwise asking for it is INVALID_FIELD). */
  multiCurrency?: boolean;
  /** Records per query batch (Salesforce: up to 2,000; tests use a few to see paging). */
  batchSize?: number;
  apiVersion?: string;
  seed?: SfSeed;
  /**
   * PKCE required, org-wide or for this app ("You can require PKCE at an org-wide level, require it
   * for a specific connected app": Salesforce Help, "Proof Key for Code Exchange (PKCE) Extension",
   * help.salesforce.com/s/articleView?id=xcloud.remoteaccess_pkce.htm). An authorize request without
   * a code_challenge is sent back with `error=invalid_request`, "missing required code challenge".
   */
  requirePkce?: boolean;
  /** The connected app's key and secret (default random): one app answers on several login hosts. */
  app?: { clientId: string; clientSecret: string };
  /** The org's daily API allocation (Sforce-Limit-Info's second number; default 15,000). */
  dailyApiLimit?: number;
};

type LoggedRequest = {
  method: string;
  path: string;
  query: URLSearchParams;
  status: number;
  soql?: string;
  body?: unknown;
};

class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}
const sfError = (status: number, errorCode: string, message: string) =>
  new HttpError(status, [{ message, errorCode, fields: [] }]);

/** Salesforce's datetime format: 2024-05-20T20:49:32.000+0000. */
export const sfTime = (d: Date) => d.toISOString().replace('Z', '+0000');
const parseSfTime = (v: string) => Date.parse(v.replace(/([+-]\d{2})(\d{2})$/, '$1:$2'));

type Condition = { field: string; op: string; value: unknown };

function literal(raw: string): unknown {
  const v = raw.trim();
  if (/^'.*'$/s.test(v)) return v.slice(1, -1).replace(/\\'/g, "'").replace(/\\\\/g, '\\');
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^null$/i.test(v)) return null;
  if (/^\d{4}-\d{2}-\d{2}T/.test(v)) return { time: parseSfTime(v) };
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return v;
  if (/^-?\d+(\.\d+)?$/.test(v)) return Number(v);
  throw sfError(400, 'MALFORMED_QUERY', `unexpected token: '${v}'`);
}

function compare(a: unknown, b: unknown): number {
  if (b && typeof b === 'object' && 'time' in b) {
    const t = typeof a === 'string' ? parseSfTime(a) : NaN;
    return t - (b as { time: number }).time;
  }
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a ?? '').localeCompare(String(b ?? ''));
}

function matches(r: SfRecord, c: Condition): boolean {
  const v = r[c.field] ?? null;
  switch (c.op) {
    case '=':
      return c.value === null ? v === null : v !== null && compare(v, c.value) === 0;
    case '!=':
      return c.value === null ? v !== null : v === null || compare(v, c.value) !== 0;
    case '>':
      return v !== null && compare(v, c.value) > 0;
    case '>=':
      return v !== null && compare(v, c.value) >= 0;
    case '<':
      return v !== null && compare(v, c.value) < 0;
    case '<=':
      return v !== null && compare(v, c.value) <= 0;
    case 'IN':
      return (c.value as unknown[]).some((x) => v !== null && compare(v, x) === 0);
    default:
      return false;
  }
}

export async function startFakeSalesforce(opts: StartFakeSalesforceOptions = {}) {
  const version = opts.apiVersion ?? 'v66.0';
  let batchSize = opts.batchSize ?? 2000;
  let requirePkce = opts.requirePkce ?? false;
  const clientId = opts.app?.clientId ?? `3MVG9fake${randomBytes(8).toString('hex')}`;
  const clientSecret = opts.app?.clientSecret ?? randomBytes(16).toString('hex');
  let origin = '';
  let orgName = 'Fake Org';
  const orgId = `00D${randomBytes(6).toString('hex').toUpperCase().slice(0, 12)}AAA`;
  const records = new Map<string, SfRecord[]>(Object.keys(SCHEMA).map((k) => [k, []]));
  const codes = new Map<string, { redirectUri: string; challenge: string | null }>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Set<string>();
  const revokedTokens: string[] = [];
  const locators = new Map<string, { type: string; rows: Record<string, unknown>[] }>();
  const requests: LoggedRequest[] = [];
  let counter = 0;
  let clock = Date.now() - 3_600_000;
  let failLimitReplies = 0;
  let failServerErrors = 0;
  let composites = 0;
  let apiDisabled = false;
  let grantedScope = 'refresh_token id api';
  const triggers: { calls: number; run: () => void }[] = [];
  let gate: { promise: Promise<void>; resolve: () => void } | null = null;
  let held = 0;
  let apiCalls = 0;
  let dailyApiLimit = opts.dailyApiLimit ?? 15_000;
  const limitInfo = () => ({ 'sforce-limit-info': `api-usage=${apiCalls}/${dailyApiLimit}` });

  /** Custom fields an admin made in Setup, per object; `updateable`: field-level security allows edits. */
  const customFields = new Map<string, Map<string, { label: string; type: string; updateable: boolean }>>();
  const schemaOf = (type: string) => {
    const base =
      type === 'Opportunity' && opts.multiCurrency
        ? [...(SCHEMA.Opportunity ?? []), 'CurrencyIsoCode']
        : SCHEMA[type];
    return base && [...base, ...(customFields.get(type)?.keys() ?? [])];
  };
  const nextId = (type: string) => {
    const n = String(++counter).padStart(12, '0');
    return `${PREFIX[type] ?? '000'}${n}AAA`.slice(0, 18);
  };
  /** A strictly increasing modstamp (whole seconds, like Salesforce). */
  const tick = () => {
    clock = Math.max(clock + 1000, Math.floor(Date.now() / 1000) * 1000 - 3_600_000);
    return sfTime(new Date(clock));
  };

  function add(type: string, fields: Omit<SfRecord, 'Id'> & { Id?: string }): SfRecord {
    const list = records.get(type);
    if (!list) throw new Error(`fake Salesforce: no object ${type}`);
    const now = tick();
    const r: SfRecord = {
      CreatedDate: now,
      LastModifiedDate: now,
      SystemModstamp: now,
      ...(SCHEMA[type]?.includes('IsDeleted') ? { IsDeleted: false } : {}),
      ...(SCHEMA[type]?.includes('IsArchived') ? { IsArchived: false } : {}),
      // A checkbox: false, never null, until the person opts out.
      ...(SCHEMA[type]?.includes('HasOptedOutOfEmail') ? { HasOptedOutOfEmail: false } : {}),
      ...fields,
      Id: fields.Id ?? nextId(type),
    };
    list.push(r);
    return r;
  }

  function seed(s: SfSeed) {
    if (s.orgName) orgName = s.orgName;
    for (const [type, rows] of Object.entries(s.records ?? {})) {
      for (const row of rows ?? []) add(type, row);
    }
  }

  function update(type: string, id: string, changes: Record<string, unknown>): SfRecord {
    const r = records.get(type)?.find((x) => x.Id === id);
    if (!r) throw new Error(`fake Salesforce: no ${type} ${id}`);
    const now = tick();
    Object.assign(r, changes, { LastModifiedDate: now, SystemModstamp: now });
    // Like Salesforce, a stage change writes an OpportunityHistory row.
    if (type === 'Opportunity' && 'StageName' in changes) {
      add('OpportunityHistory', {
        OpportunityId: id,
        StageName: changes.StageName,
        Amount: r.Amount,
        CreatedDate: now,
      });
    }
    return r;
  }

  /**
   * Deletes a record as a user would: to the recycle bin, IsDeleted true and SystemModstamp moved
   * on. `query` no longer returns it; `queryAll` does.
   */
  function remove(type: string, id: string): SfRecord {
    const r = records.get(type)?.find((x) => x.Id === id);
    if (!r) throw new Error(`fake Salesforce: no ${type} ${id}`);
    if (!SCHEMA[type]?.includes('IsDeleted')) throw new Error(`fake Salesforce: ${type} cannot be deleted`);
    Object.assign(r, { IsDeleted: true, SystemModstamp: tick() });
    return r;
  }

  function parseQuery(q: string, all: boolean) {
    const m =
      /^\s*SELECT\s+(.+?)\s+FROM\s+(\w+)(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+(\w+)(?:\s+(ASC|DESC))?)?(?:\s+LIMIT\s+(\d+))?\s*$/is.exec(
        q,
      );
    if (!m) throw sfError(400, 'MALFORMED_QUERY', `unexpected query: ${q.slice(0, 100)}`);
    const [, fieldList, type, where, orderBy, dir, limit] = m;
    const schema = schemaOf(type!);
    if (!schema) throw sfError(400, 'INVALID_TYPE', `sObject type '${type}' is not supported.`);
    const fields = fieldList!.split(',').map((f) => f.trim());
    for (const f of [...fields, ...(orderBy ? [orderBy] : [])]) {
      if (!schema.includes(f))
        throw sfError(400, 'INVALID_FIELD', `No such column '${f}' on entity '${type}'.`);
    }
    const conditions: Condition[] = where
      ? where.split(/\s+AND\s+/i).map((part) => {
          const c = /^\s*(\w+)\s*(=|!=|>=|<=|>|<|\s+IN\s+)\s*(.+?)\s*$/is.exec(part);
          if (!c) throw sfError(400, 'MALFORMED_QUERY', `unexpected condition: ${part}`);
          const field = c[1]!;
          if (!schema.includes(field)) {
            throw sfError(400, 'INVALID_FIELD', `No such column '${field}' on entity '${type}'.`);
          }
          const op = c[2]!.trim().toUpperCase();
          const value =
            op === 'IN'
              ? c[3]!
                  .replace(/^\(|\)$/g, '')
                  .split(',')
                  .map(literal)
              : literal(c[3]!);
          return { field, op, value };
        })
      : [];
    let rows = (records.get(type!) ?? []).filter(
      (r) => (all || (!r.IsDeleted && !r.IsArchived)) && conditions.every((c) => matches(r, c)),
    );
    if (orderBy) {
      rows = [...rows].sort(
        (a, b) => compare(a[orderBy], b[orderBy]) * (dir?.toUpperCase() === 'DESC' ? -1 : 1),
      );
    }
    if (limit) rows = rows.slice(0, Number(limit));
    return {
      type: type!,
      rows: rows.map((r) => {
        const out: Record<string, unknown> = {
          attributes: { type, url: `/services/data/${version}/sobjects/${type}/${r.Id}` },
        };
        for (const f of fields) out[f] = r[f] ?? null;
        return out;
      }),
    };
  }

  function page(locator: string, offset: number) {
    const result = locators.get(locator);
    if (!result) throw sfError(400, 'INVALID_QUERY_LOCATOR', 'invalid query locator');
    const end = offset + batchSize;
    const done = end >= result.rows.length;
    return {
      totalSize: result.rows.length,
      done,
      ...(done ? {} : { nextRecordsUrl: `/services/data/${version}/query/${locator}-${end}` }),
      records: result.rows.slice(offset, end),
    };
  }

  async function readJson(req: IncomingMessage): Promise<unknown> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    try {
      return JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      throw sfError(400, 'JSON_PARSER_ERROR', 'Unexpected character');
    }
  }

  /** An insert through the API: known object and fields only; a campaign member once per contact. */
  function insert(type: string, fields: Record<string, unknown>): SfRecord {
    const schema = schemaOf(type);
    if (!schema) throw sfError(404, 'NOT_FOUND', `The requested resource does not exist: ${type}`);
    for (const f of Object.keys(fields)) {
      if (!schema.includes(f) || f === 'Id')
        throw sfError(400, 'INVALID_FIELD', `No such column '${f}' on sobject of type ${type}`);
    }
    if (type === 'CampaignMember') {
      // A member is a Contact (ContactId) or a Lead (LeadId); an id of the other object in a lookup
      // is refused (FIELD_INTEGRITY_EXCEPTION "id value of incorrect type").
      for (const [field, object] of [
        ['ContactId', 'Contact'],
        ['LeadId', 'Lead'],
      ] as const) {
        const id = fields[field];
        if (id !== undefined && id !== null && !records.get(object)?.some((r) => r.Id === id)) {
          throw sfError(
            400,
            'FIELD_INTEGRITY_EXCEPTION',
            `${object} ID: id value of incorrect type: ${String(id)}`,
          );
        }
      }
      if (!fields.ContactId && !fields.LeadId) {
        throw sfError(400, 'REQUIRED_FIELD_MISSING', 'Required fields are missing: [ContactId, LeadId]');
      }
      const dup = records
        .get(type)
        ?.some(
          (m) =>
            m.CampaignId === fields.CampaignId &&
            ((fields.ContactId && m.ContactId === fields.ContactId) ||
              (fields.LeadId && m.LeadId === fields.LeadId)),
        );
      if (dup) throw sfError(400, 'DUPLICATE_VALUE', 'Already a campaign member.');
      const statuses = records.get('CampaignMemberStatus') ?? [];
      if (
        fields.Status &&
        !statuses.some((st) => st.CampaignId === fields.CampaignId && st.Label === fields.Status)
      ) {
        throw sfError(
          400,
          'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
          `bad value for restricted picklist field: ${String(fields.Status)}`,
        );
      }
    }
    return add(type, fields);
  }

  async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
  }

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  function tokenReply(access: string, refresh: string | null) {
    return {
      access_token: access,
      ...(refresh ? { refresh_token: refresh } : {}),
      signature: randomBytes(16).toString('base64'),
      scope: grantedScope,
      instance_url: origin,
      id: `${origin}/id/${orgId}/005000000000001AAA`,
      token_type: 'Bearer',
      issued_at: String(Date.now()),
    };
  }

  async function token(req: IncomingMessage, res: ServerResponse) {
    const form = await readForm(req);
    if (form.get('client_id') !== clientId || form.get('client_secret') !== clientSecret) {
      throw new HttpError(400, { error: 'invalid_client', error_description: 'invalid client credentials' });
    }
    const access = `00D!${randomBytes(24).toString('base64url')}`;
    if (form.get('grant_type') === 'authorization_code') {
      const code = codes.get(form.get('code') ?? '');
      codes.delete(form.get('code') ?? '');
      if (!code || code.redirectUri !== form.get('redirect_uri')) {
        throw new HttpError(400, { error: 'invalid_grant', error_description: 'invalid authorization code' });
      }
      // A code issued for a code_challenge needs its code_verifier (SHA-256, base64url), else the
      // login fails (REST API Developer Guide, "Web Server OAuth Authentication Flow", code_challenge).
      if (code.challenge) {
        const verifier = form.get('code_verifier') ?? '';
        if (createHash('sha256').update(verifier).digest('base64url') !== code.challenge) {
          throw new HttpError(400, { error: 'invalid_grant', error_description: 'invalid code verifier' });
        }
      }
      const refresh = `5Aep${randomBytes(24).toString('base64url')}`;
      accessTokens.add(access);
      refreshTokens.add(refresh);
      return send(res, 200, tokenReply(access, refresh));
    }
    if (form.get('grant_type') === 'refresh_token') {
      if (!refreshTokens.has(form.get('refresh_token') ?? '')) {
        throw new HttpError(400, {
          error: 'invalid_grant',
          error_description: 'expired access/refresh token',
        });
      }
      accessTokens.add(access);
      // Salesforce keeps the refresh token: the reply carries none.
      return send(res, 200, tokenReply(access, null));
    }
    throw new HttpError(400, {
      error: 'unsupported_grant_type',
      error_description: 'grant type not supported',
    });
  }

  function authorize(q: URLSearchParams, res: ServerResponse) {
    if (q.get('client_id') !== clientId) {
      throw new HttpError(400, {
        error: 'invalid_client_id',
        error_description: 'client identifier invalid',
      });
    }
    const redirectUri = q.get('redirect_uri') ?? '';
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    if (q.get('response_type') !== 'code') back.searchParams.set('error', 'unsupported_response_type');
    else if (
      requirePkce &&
      (!q.get('code_challenge') || (q.get('code_challenge_method') ?? 'S256') !== 'S256')
    ) {
      back.searchParams.set('error', 'invalid_request');
      back.searchParams.set('error_description', 'missing required code challenge');
    } else {
      const code = `aPrx${randomBytes(20).toString('base64url')}`;
      codes.set(code, { redirectUri, challenge: q.get('code_challenge') });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  /**
   * sObject Collections update (REST API Developer Guide, "Update Records Using sObject
   * Collections", developer.salesforce.com/docs/platform/api-rest/guide/resources-composite-sobjects-
   * collections-update.html): up to 200 records, each with `attributes.type` and `id`; a request
   * that is not well formed (over 200, a field the type does not have or the user cannot see) is
   * 400 with the error array; else 200 and one SaveResult per record, in order (allOrNone false).
   */
  function updateCollection(list: Record<string, unknown>[]) {
    if (list.length > 200) {
      throw sfError(400, 'EXCEEDED_ID_LIMIT', 'record limit reached. cannot submit more than 200 records');
    }
    for (const rec of list) {
      const { attributes, id, ...fields } = rec as { attributes?: { type?: string }; id?: string };
      const schema = schemaOf(attributes?.type ?? '');
      if (!schema) throw sfError(400, 'INVALID_TYPE', 'Each record needs attributes.type.');
      if (!id) throw sfError(400, 'MISSING_ARGUMENT', 'Each record needs an id.');
      for (const f of Object.keys(fields)) {
        if (!schema.includes(f) || f === 'Id') {
          throw sfError(400, 'INVALID_FIELD', `No such column '${f}' on sobject of type ${attributes!.type}`);
        }
      }
    }
    composites += 1;
    return list.map((rec) => {
      const { attributes, id, ...fields } = rec as { attributes: { type: string }; id: string };
      const fail = (statusCode: string, message: string, on: string[] = []) => ({
        id,
        success: false,
        errors: [{ statusCode, message, fields: on }],
      });
      const r = records.get(attributes.type)?.find((x) => x.Id === id);
      if (!r) return fail('INVALID_CROSS_REFERENCE_KEY', 'invalid cross reference id');
      if (r.IsDeleted) return fail('ENTITY_IS_DELETED', 'entity is deleted');
      const locked = Object.keys(fields).filter(
        (f) => customFields.get(attributes.type)?.get(f)?.updateable === false,
      );
      if (locked.length) {
        return fail(
          'INVALID_FIELD_FOR_INSERT_UPDATE',
          `Unable to create/update fields: ${locked.join(', ')}.`,
          locked,
        );
      }
      update(attributes.type, id, fields);
      return { id, success: true, errors: [] };
    });
  }

  async function api(req: IncomingMessage, url: URL, res: ServerResponse, entry: LoggedRequest) {
    for (const t of [...triggers]) {
      if (--t.calls <= 0) {
        triggers.splice(triggers.indexOf(t), 1);
        t.run();
      }
    }
    if (gate) {
      held += 1;
      await gate.promise;
    }
    if (apiDisabled)
      throw sfError(403, 'API_DISABLED_FOR_ORG', 'The REST API is not enabled for this Organization.');
    if (failServerErrors > 0) {
      failServerErrors -= 1;
      throw sfError(500, 'UNKNOWN_EXCEPTION', 'An unexpected error occurred.');
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!auth || !accessTokens.has(auth)) {
      throw sfError(401, 'INVALID_SESSION_ID', 'Session expired or invalid');
    }
    // Too many long-running requests at once: "If the number of long running requests exceeds the
    // limit, the API returns a REQUEST_LIMIT_EXCEEDED exception code" (API Request Limits and
    // Allocations, "Concurrent API Request Limits"); it passes once they finish.
    if (failLimitReplies > 0) {
      failLimitReplies -= 1;
      throw sfError(
        403,
        'REQUEST_LIMIT_EXCEEDED',
        'ConcurrentRequests (Concurrent API Requests) Limit exceeded.',
      );
    }
    // Over the org's allocation for the last 24 hours: refused until the usage falls.
    if (apiCalls >= dailyApiLimit)
      throw sfError(403, 'REQUEST_LIMIT_EXCEEDED', 'TotalRequests Limit exceeded.');
    apiCalls += 1;
    const headers = limitInfo();
    const rest = url.pathname.slice(`/services/data/${version}`.length);
    const queryMatch = /^\/(query|queryAll)\/?$/.exec(rest);
    if (queryMatch && req.method === 'GET') {
      const q = url.searchParams.get('q') ?? '';
      entry.soql = q;
      const result = parseQuery(q, queryMatch[1] === 'queryAll');
      const locator = `01g${randomBytes(6).toString('hex')}`;
      locators.set(locator, result);
      return send(res, 200, page(locator, 0), headers);
    }
    const more = /^\/query(?:All)?\/(01g[0-9a-f]+)-(\d+)$/.exec(rest);
    if (more && req.method === 'GET') return send(res, 200, page(more[1]!, Number(more[2])), headers);
    const create = /^\/sobjects\/(\w+)\/?$/.exec(rest);
    if (create && req.method === 'POST') {
      const body = (await readJson(req)) as Record<string, unknown>;
      const r = insert(create[1]!, body);
      return send(res, 201, { id: r.Id, success: true, errors: [] }, headers);
    }
    if (rest === '/composite/sobjects' && req.method === 'POST') {
      const body = (await readJson(req)) as { allOrNone?: boolean; records?: Record<string, unknown>[] };
      const list = body.records ?? [];
      if (list.length > 200)
        throw sfError(400, 'EXCEEDED_ID_LIMIT', 'record limit reached. cannot submit more than 200 records');
      composites += 1;
      return send(
        res,
        200,
        list.map((rec) => {
          const { attributes, ...fields } = rec as { attributes?: { type?: string } } & Record<
            string,
            unknown
          >;
          try {
            const r = insert(attributes?.type ?? '', fields);
            return { id: r.Id, success: true, errors: [] };
          } catch (err) {
            const e =
              err instanceof HttpError
                ? (err.body as { message: string; errorCode: string }[])[0]
                : undefined;
            return {
              success: false,
              errors: [
                { statusCode: e?.errorCode ?? 'UNKNOWN', message: e?.message ?? String(err), fields: [] },
              ],
            };
          }
        }),
        headers,
      );
    }
    if (rest === '/composite/sobjects' && req.method === 'PATCH') {
      const body = (await readJson(req)) as { allOrNone?: boolean; records?: Record<string, unknown>[] };
      entry.body = body;
      return send(res, 200, updateCollection(body.records ?? []), headers);
    }
    const describe = /^\/sobjects\/(\w+)\/describe$/.exec(rest);
    if (describe && SCHEMA[describe[1]!]) {
      const type = describe[1]!;
      const stages = records.get('OpportunityStage') ?? [];
      return send(
        res,
        200,
        {
          name: type,
          fields: schemaOf(type)!.map((name) => ({
            name,
            label: customFields.get(type)?.get(name)?.label ?? name.replace(/([a-z])([A-Z])/g, '$1 $2'),
            custom: customFields.get(type)?.has(name) ?? false,
            updateable:
              customFields.get(type)?.get(name)?.updateable ??
              !['Id', 'IsDeleted', 'CreatedDate', 'LastModifiedDate', 'SystemModstamp'].includes(name),
            type:
              customFields.get(type)?.get(name)?.type ??
              (name === 'Id'
                ? 'id'
                : name.endsWith('Id')
                  ? 'reference'
                  : name === 'StageName'
                    ? 'picklist'
                    : 'string'),
            picklistValues:
              name === 'StageName'
                ? stages.map((s) => ({
                    value: s.ApiName,
                    label: s.MasterLabel,
                    active: s.IsActive,
                    defaultValue: false,
                  }))
                : [],
            referenceTo: [],
            nillable: name !== 'Id',
          })),
          recordTypeInfos: (records.get('RecordType') ?? [])
            .filter((r) => r.SobjectType === type)
            .map((r) => ({
              recordTypeId: r.Id,
              name: r.Name,
              developerName: r.DeveloperName,
              active: r.IsActive,
            })),
        },
        headers,
      );
    }
    throw sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', origin);
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      status: 0,
    };
    requests.push(entry);
    try {
      if (url.pathname === '/services/oauth2/authorize' && req.method === 'GET')
        authorize(url.searchParams, res);
      else if (url.pathname === '/services/oauth2/token' && req.method === 'POST') await token(req, res);
      else if (url.pathname === '/services/oauth2/revoke' && req.method === 'POST') {
        const t = (await readForm(req)).get('token') ?? '';
        revokedTokens.push(t);
        if (refreshTokens.delete(t)) accessTokens.clear();
        accessTokens.delete(t);
        send(res, 200, undefined);
      } else if (url.pathname.startsWith(`/services/data/${version}/`)) await api(req, url, res, entry);
      else throw sfError(404, 'NOT_FOUND', 'The requested resource does not exist');
    } catch (err) {
      // The limit header comes with every REST reply, errors too.
      if (err instanceof HttpError)
        send(res, err.status, err.body, url.pathname.startsWith('/services/data/') ? limitInfo() : {});
      else {
        console.error('fake Salesforce failed', err);
        send(res, 500, [{ message: 'internal error', errorCode: 'UNKNOWN_EXCEPTION' }]);
      }
    } finally {
      entry.status = res.statusCode;
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake Salesforce did not get a port');
  origin = `http://127.0.0.1:${address.port}`;
  add('Organization', { Name: orgName, Id: orgId });
  if (opts.seed) seed(opts.seed);
  const org = records.get('Organization')?.[0];
  if (org) org.Name = orgName;

  return {
    /** The login server (SALESFORCE_AUTH_URL); also the org's instance_url. */
    authUrl: origin,
    apiVersion: version,
    clientId,
    clientSecret,
    requests,
    /** The SOQL queries received (first pages only), oldest first. */
    queries: () => requests.flatMap((r) => (r.soql ? [r.soql] : [])),
    clearRequests() {
      requests.length = 0;
    },
    records: (type: string) => records.get(type) ?? [],
    seed,
    add,
    update,
    remove,
    setBatchSize(n: number) {
      batchSize = n;
    },
    /** The org (or the app) starts or stops requiring PKCE (see `requirePkce`). */
    setRequirePkce(on: boolean) {
      requirePkce = on;
    },
    /** Every current session stops working (INVALID_SESSION_ID); refresh tokens still do. */
    expireSessions() {
      accessTokens.clear();
    },
    /** The user or an admin revoked the app: sessions and refresh tokens stop working. */
    revokeAccess() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    /** Runs `fn` just before the `n`th API call from now is answered (e.g. expire sessions mid-sync). */
    afterCalls(n: number, fn: () => void) {
      triggers.push({ calls: n, run: fn });
    },
    /** From the `n`th API call from now on, API calls wait unanswered until `release()`. */
    holdAfter(n: number) {
      triggers.push({
        calls: n,
        run: () => {
          if (gate) return;
          let resolve = () => {};
          const promise = new Promise<void>((r) => (resolve = r));
          gate = { promise, resolve };
        },
      });
    },
    /** How many API calls are waiting on the hold. */
    held: () => held,
    release() {
      gate?.resolve();
      gate = null;
    },
    /** The org loses API access (edition or profile): API calls answer 403 API_DISABLED_FOR_ORG. */
    disableApi(disabled = true) {
      apiDisabled = disabled;
    },
    /** The scopes the connected app grants from now on (space-separated). */
    grantScope(scope: string) {
      grantedScope = scope;
    },
    /** An admin creates a custom field in Setup (type `url`, `string`…; `updateable` false: read-only FLS). */
    addCustomField(
      object: string,
      name: string,
      label: string,
      o: { type?: string; updateable?: boolean } = {},
    ) {
      if (!customFields.has(object)) customFields.set(object, new Map());
      customFields.get(object)!.set(name, { label, type: o.type ?? 'url', updateable: o.updateable ?? true });
    },
    /** An admin deletes a custom field: its values go with it. */
    deleteCustomField(object: string, name: string) {
      customFields.get(object)?.delete(name);
      for (const r of records.get(object) ?? []) Reflect.deleteProperty(r, name);
    },
    /** How many composite (batched) writes were made. */
    composites: () => composites,
    /** The next `n` API calls are answered 500 UNKNOWN_EXCEPTION. */
    failWithServerError(n: number) {
      failServerErrors = n;
    },
    /** The next `n` API calls are answered 403 REQUEST_LIMIT_EXCEEDED (too many concurrent long requests). */
    failWithLimit(n: number) {
      failLimitReplies = n;
    },
    /** API calls counted in the last 24 hours (the header's first number). */
    apiUsage: () => apiCalls,
    /** The org's usage as if its other integrations had made `used` calls; optionally a new allocation. */
    setApiUsage(used: number, limit = dailyApiLimit) {
      apiCalls = used;
      dailyApiLimit = limit;
    },
    /** Salesforce's archival of an old Task or Event (IsArchived: `query` no longer returns it). */
    archive(type: 'Task' | 'Event', id: string) {
      const r = records.get(type)?.find((x) => x.Id === id);
      if (!r) throw new Error(`fake Salesforce: no ${type} ${id}`);
      r.IsArchived = true;
    },
    revokedTokens,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export type FakeSalesforce = Awaited<ReturnType<typeof startFakeSalesforce>>;

/** A small org: stages, a record type, two owners, three accounts, contacts and opportunities. */
export function smallOrg(): SfSeed {
  const stages = [
    ['Prospecting', 10, false, false],
    ['Qualification', 20, false, false],
    ['Proposal/Price Quote', 75, false, false],
    ['Closed Won', 100, true, true],
    ['Closed Lost', 0, true, false],
  ] as const;
  return {
    orgName: 'Acme Robotics (fake org)',
    records: {
      OpportunityStage: stages.map(([name, p, closed, won], i) => ({
        MasterLabel: name,
        ApiName: name,
        IsActive: true,
        IsClosed: closed,
        IsWon: won,
        DefaultProbability: p,
        SortOrder: i + 1,
      })),
      RecordType: [
        { Name: 'New Business', DeveloperName: 'New_Business', SobjectType: 'Opportunity', IsActive: true },
      ],
      User: [
        {
          FirstName: 'Maya',
          LastName: 'Lindgren',
          Name: 'Maya Lindgren',
          Email: 'maya@acme.example',
          IsActive: true,
          UserType: 'Standard',
        },
        {
          FirstName: 'Theo',
          LastName: 'Baptiste',
          Name: 'Theo Baptiste',
          Email: 'theo@acme.example',
          IsActive: false,
          UserType: 'Standard',
        },
      ],
    },
  };
}
