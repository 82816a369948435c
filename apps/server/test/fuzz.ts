import { availableParallelism, loadavg } from 'node:os';
import fc from 'fast-check';
import type { FastifyInstance, InjectOptions } from 'fastify';
import { DEMO_CLIENTS, DEMO_EMAIL, DEMO_PASSWORD, seedDemoAll } from '../src/db/seed.ts';
import { INTERNAL_ERROR_MESSAGE } from '../src/lib/errors.ts';
import { Browser } from './http.ts';

/** Nothing the fuzzer sends leaves the machine: every vendor, and every URL it makes up, is a closed port. */
export const CLOSED = 'http://127.0.0.1:9';
export const FUZZ_ENV: Record<string, string> = {
  SALESLOFT_API_URL: CLOSED,
  SALESLOFT_AUTH_URL: CLOSED,
  OUTREACH_API_URL: CLOSED,
  OUTREACH_AUTH_URL: CLOSED,
  APOLLO_API_URL: CLOSED,
  SALESFORCE_AUTH_URL: CLOSED,
  HUBSPOT_API_URL: CLOSED,
  HUBSPOT_AUTH_URL: CLOSED,
};

/**
 * A fuzzer over every operation of the OpenAPI document (issue 20, "deliver as lasting tests"):
 * requests generated with fast-check from each operation's own schemas, then broken — wrong types,
 * missing and extra fields, NUL and lone UTF-16 surrogates, huge strings and numbers, deep nesting,
 * bad UUIDs, wrong content types — and sent signed in as the demo owner with a valid CSRF token, so
 * they reach validation and the handlers. Each reply is checked: no 5xx, none slower than
 * `maxMs`, a 422 names its field (not the error handler's PostgreSQL safety net), and nothing is
 * written to the database on a 4xx. Shared by `fuzz.test.ts` (a fixed seed, a bounded count) and
 * `npm run bench -- fuzz` (a longer run).
 */

type JsonSchema = {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema | JsonSchema[];
  prefixItems?: JsonSchema[];
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  pattern?: string;
  minLength?: number;
  maxLength?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number | boolean;
  exclusiveMaximum?: number | boolean;
  minItems?: number;
  maxItems?: number;
  additionalProperties?: boolean | JsonSchema;
  nullable?: boolean;
  default?: unknown;
};

type Parameter = { in: 'path' | 'query' | 'header'; name: string; required?: boolean; schema?: JsonSchema };

export type Operation = {
  method: string;
  /** OpenAPI form: /v1/rest/content/{id} */
  path: string;
  params: Parameter[];
  /** The JSON body's schema, when the operation takes one. */
  body?: JsonSchema;
  bodyRequired: boolean;
};

export type FuzzRequest = {
  op: string;
  kind: string;
  /** Where in the body another client's id was put: a 2xx is then a finding. */
  foreignIdAt?: string;
  method: string;
  url: string;
  headers: Record<string, string>;
  payload?: string;
};

export type Finding = { request: FuzzRequest; status: number; ms: number; problem: string; body: string };

export type FuzzStats = {
  operations: number;
  requests: number;
  byStatus: Record<string, number>;
  s5xx: number;
  /** 502–504 naming a vendor that cannot be reached (every vendor is a closed port here): by design. */
  vendorUnreachable: number;
  slow: number;
  writesOn4xx: number;
  /** Successful requests that wrote: shows the write check sees writes at all. */
  writesOn2xx: number;
  unnamed422: number;
  /** Requests with another client's id in a body field, and those of them that succeeded (findings). */
  foreignIdRequests: number;
  foreignIdAccepted: number;
  reSignIns: number;
  maxMs: number;
  /** Time spent seeding, and looking for writes. */
  seedMs: number;
  pictureMs: number;
  /** The five slowest replies. */
  slowest: { op: string; kind: string; status: number; ms: number }[];
  findings: Finding[];
};

/** Operations of `/v1/docs/json`, sign-out excluded (it would end the session the fuzzer works in). */
export async function operationsOf(app: FastifyInstance): Promise<Operation[]> {
  const doc = (await app.inject('/v1/docs/json')).json() as {
    paths: Record<string, Record<string, unknown>>;
  };
  const ops: Operation[] = [];
  for (const [p, methods] of Object.entries(doc.paths)) {
    for (const [m, raw] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(m)) continue;
      const spec = raw as {
        parameters?: Parameter[];
        requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> };
      };
      const method = m.toUpperCase();
      if (isSignOut(method, p)) continue;
      const content = spec.requestBody?.content ?? {};
      const json = content['application/json']?.schema ?? Object.values(content)[0]?.schema;
      ops.push({
        method,
        path: p,
        params: (spec.parameters ?? []).filter((x) => x.in !== 'header' || x.name !== 'x-client-id'),
        body: json,
        bodyRequired: spec.requestBody?.required ?? false,
      });
    }
  }
  return ops;
}

function isSignOut(method: string, path: string): boolean {
  return (method === 'DELETE' && path === '/v1/api/auth') || /logout|sign-?out/i.test(path);
}

// ---------------------------------------------------------------------------------------------------
// Values: valid ones from a schema, and hostile ones.

const HUGE = 'A'.repeat(300_000);
const NUL = fc.constantFrom('\u0000', 'a\u0000b', '%00', '\u0000'.repeat(50));
const SURROGATE = fc.constantFrom('\uD800', 'x\uDC00', '\uDBFF\uDBFF', 'ok\uD83D');
const BAD_UUIDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'ffffffff-ffff-ffff-ffff-ffffffffffff',
  '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c00000',
  '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c0000011',
  '{6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002}',
  '6F1C2A8E4B1D4C3A9E510A7D2C000002',
  "' OR 1=1 --",
  '../../etc/passwd',
  '-1',
  '0',
  '1e999',
  '9007199254740993',
  '99999999999999999999999',
];

/** Numbers beyond every column: int4, int8, float and JSON's own limits. */
const HUGE_NUMBERS = [
  2_147_483_648,
  -2_147_483_649,
  2 ** 53 + 2,
  -(2 ** 53 + 2),
  1e21,
  1e308,
  -1e308,
  5e-324,
  -0,
  1.5,
  -1,
];

function deepArray(depth: number): unknown {
  let v: unknown = [];
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}
function deepObject(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: v };
  return v;
}

/** A value no schema of a well-formed request expects. */
export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  NUL,
  SURROGATE,
  fc.constantFrom(...BAD_UUIDS),
  fc.constantFrom(HUGE, 'é'.repeat(70_000), '😀'.repeat(40_000)),
  fc.constantFrom(...HUGE_NUMBERS),
  fc.constantFrom(null, true, false, 0, '', [], {}, [null], { __proto__: { admin: true } }),
  fc.constantFrom(deepArray(64), deepObject(64), deepArray(2_000), deepObject(2_000)),
  fc.constantFrom({ constructor: { prototype: { polluted: 1 } } }, JSON.parse('{"__proto__":{"x":1}}')),
  fc.constantFrom('<script>alert(1)</script>', '${7*7}', '{{7*7}}', '\\', '"', "'", '%', '_'),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.integer(),
  fc.double(),
);

function types(s: JsonSchema): string[] {
  if (Array.isArray(s.type)) return s.type;
  return s.type ? [s.type] : [];
}

/** A value the schema accepts (as far as generation can tell); patterns are tried, formats honoured. */
export function valid(schema: JsonSchema | undefined, ids: IdPool, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > 6) return fc.constant(undefined);
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum?.length) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives?.length) return fc.oneof(...alternatives.map((a) => valid(a, ids, depth + 1)));
  if (schema.allOf?.length) return valid(Object.assign({}, ...schema.allOf) as JsonSchema, ids, depth + 1);
  const t = types(schema).filter((x) => x !== 'null');
  const base = ((): fc.Arbitrary<unknown> => {
    switch (t[0]) {
      case 'string':
        return validString(schema, ids);
      case 'integer': {
        const min = Math.max(typeof schema.minimum === 'number' ? schema.minimum : -1000, -1e6);
        const max = Math.min(typeof schema.maximum === 'number' ? schema.maximum : 1000, 1e6);
        return fc.oneof(fc.integer({ min, max: Math.max(min, max) }), ids.integers);
      }
      case 'number': {
        const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
        const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
        return fc.double({ min, max: Math.max(min, max), noNaN: true, noDefaultInfinity: true });
      }
      case 'boolean':
        return fc.boolean();
      case 'array': {
        const item = Array.isArray(schema.items) ? schema.items[0] : schema.items;
        return fc.array(valid(item, ids, depth + 1), {
          minLength: Math.min(schema.minItems ?? 0, 5),
          maxLength: Math.max(Math.min(schema.maxItems ?? 3, 3), Math.min(schema.minItems ?? 0, 5)),
        });
      }
      case 'object':
      case undefined: {
        if (!schema.properties) return t[0] === 'object' ? fc.constant({}) : fc.constant(null);
        const record: Record<string, fc.Arbitrary<unknown>> = {};
        for (const [k, v] of Object.entries(schema.properties)) {
          // An id field gets ids of its own table, so the request can reach the handler.
          const table = tableOfField([k]);
          const rows = table ? ids.byTable?.[table] : undefined;
          record[k] = rows?.length
            ? types(v).includes('array')
              ? fc.subarray(rows, { minLength: 1, maxLength: Math.min(3, rows.length) })
              : fc.constantFrom(...rows)
            : valid(v, ids, depth + 1);
        }
        return fc.record(record, { requiredKeys: schema.required ?? [] });
      }
      default:
        return fc.constant(null);
    }
  })();
  return types(schema).includes('null') || schema.nullable ? fc.oneof(base, fc.constant(null)) : base;
}

function validString(schema: JsonSchema, ids: IdPool): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = Math.max(minLength, Math.min(schema.maxLength ?? 40, 40));
  switch (schema.format) {
    case 'uuid':
      return fc.oneof(ids.uuids, fc.uuid());
    case 'email':
      return fc.emailAddress();
    case 'uri':
    case 'url':
      return fc.webPath().map((p) => `${CLOSED}${p}`);
    case 'date-time':
      return fc
        .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString());
    case 'date':
      return fc
        .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
        .map((d) => d.toISOString().slice(0, 10));
  }
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length <= 200);
    } catch {
      // A pattern fast-check cannot read: a plain string then.
    }
  }
  return fc.string({ minLength, maxLength });
}

// ---------------------------------------------------------------------------------------------------
// Real ids, so that requests reach handlers and not only the schemas.

export type IdPool = {
  uuids: fc.Arbitrary<string>;
  integers: fc.Arbitrary<number>;
  all: string[];
  /** The rows' ids by table, for a body's id fields (`stage_ids` gets stages, issue 37). */
  byTable?: IdsByTable;
  /** Another client's ids, put into the id fields of bodies (issue 37): such a request must be refused. */
  foreign?: IdsByTable;
};

export type IdsByTable = Record<string, (string | number)[]>;

/** The table a body's id field names, by the field's name (and `id` of a journey's stage). */
const ID_TABLES: [RegExp, string][] = [
  [/^(crm_)?stage_ids?$/, 'crm_stages'],
  [/^sales_rep_ids?$/, 'sales_reps'],
  [/^(crm_)?list_ids?$/, 'crm_lists'],
  [/^import_id$/, 'file_imports'],
  [/^account_ids?$/, 'companies'],
  [/^target_ids?$/, 'targets'],
  [/^content_ids?$/, 'content'],
  [/^cohort_ids?$/, 'cohorts'],
  [/^invoice_id$/, 'invoices'],
  [/^landing_page_id$/, 'landing_pages'],
  [/^cadence_ids?$/, 'cadences'],
];
export function tableOfField(at: readonly string[]): string | undefined {
  const key = at[at.length - 1];
  if (key === undefined) return undefined;
  if (key === 'id') return at.includes('stages') ? 'journey_stages' : undefined;
  return ID_TABLES.find(([re]) => re.test(key))?.[1];
}

/**
 * Ids of rows that belong to `clientId` (tables with a client_id column), a few per table. The
 * demo clients' own ids and user ids are left out: a fuzzed DELETE must not remove the client the
 * fuzzer works in, which would turn the rest of the run into 403s.
 */
export async function idPool(app: FastifyInstance, clientId: string): Promise<IdPool> {
  const { rows: list } = (await app.database.execute(
    `select c.table_name, i.data_type from information_schema.columns c
       join information_schema.columns i on i.table_schema = c.table_schema and i.table_name = c.table_name and i.column_name = 'id'
      where c.table_schema = 'public' and c.column_name = 'client_id' order by 1`,
  )) as { rows: { table_name: string; data_type: string }[] };
  const uuids: string[] = [];
  const integers: number[] = [];
  const byTable: IdsByTable = {};
  for (const t of list) {
    const { rows } = (await app.database.execute(
      `select id::text as id from "${t.table_name}" where client_id = $1 order by 1 limit 4`,
      [clientId],
    )) as { rows: { id: string }[] };
    for (const r of rows) {
      const id = t.data_type === 'uuid' ? r.id : /^\d+$/.test(r.id) ? Number(r.id) : undefined;
      if (id === undefined) continue;
      if (typeof id === 'string') uuids.push(id);
      else integers.push(id);
      (byTable[t.table_name] ??= []).push(id);
    }
  }
  return {
    uuids: uuids.length ? fc.constantFrom(...uuids) : fc.uuid(),
    integers: integers.length ? fc.constantFrom(...integers) : fc.integer({ min: 1, max: 100 }),
    all: [...uuids, ...integers.map(String)],
    byTable,
  };
}

/** One id per table of rows belonging to `clientId`, with the table's name and the id's kind. */
export async function idsByTable(
  app: FastifyInstance,
  clientId: string,
): Promise<{ table: string; id: string; uuid: boolean }[]> {
  const { rows: list } = (await app.database.execute(
    `select c.table_name, i.data_type from information_schema.columns c
       join information_schema.columns i on i.table_schema = c.table_schema and i.table_name = c.table_name and i.column_name = 'id'
      where c.table_schema = 'public' and c.column_name = 'client_id' order by 1`,
  )) as { rows: { table_name: string; data_type: string }[] };
  const out: { table: string; id: string; uuid: boolean }[] = [];
  for (const t of list) {
    const { rows } = (await app.database.execute(
      `select id::text as id from "${t.table_name}" where client_id = $1 order by 1 limit 1`,
      [clientId],
    )) as { rows: { id: string }[] };
    if (rows[0]) out.push({ table: t.table_name, id: rows[0].id, uuid: t.data_type === 'uuid' });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// Requests: a valid-looking one from the schemas, then one thing broken.

type Draft = {
  path: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  contentType?: string;
  rawBody?: string;
  kind: string;
  /** Where in the body another client's id was put (kind `foreign-body-id`). */
  foreignIdAt?: string;
};

function pathValue(p: Parameter, ids: IdPool): fc.Arbitrary<string> {
  const s = p.schema ?? {};
  if (p.name === 'clientId') return fc.constant(DEMO_CLIENTS.acme.id);
  if (s.format === 'uuid') return fc.oneof(ids.uuids, fc.uuid());
  if (types(s).includes('integer') || types(s).includes('number'))
    return fc.oneof(ids.integers.map(String), fc.integer({ min: 1, max: 1000 }).map(String));
  return fc.oneof(
    valid(s, ids).map((v) => String(v ?? '')),
    fc.constantFrom(...ids.all.slice(0, 40), 'x'),
  );
}

function draftOf(op: Operation, ids: IdPool): fc.Arbitrary<Draft> {
  const pathArb: Record<string, fc.Arbitrary<string>> = {};
  const queryArb: Record<string, fc.Arbitrary<unknown>> = {};
  const requiredQuery: string[] = [];
  for (const p of op.params) {
    if (p.in === 'path') pathArb[p.name] = pathValue(p, ids);
    else if (p.in === 'query') {
      queryArb[p.name] = valid(p.schema, ids);
      if (p.required) requiredQuery.push(p.name);
    }
  }
  return fc.record({
    path: fc.record(pathArb),
    query: fc.record(queryArb, { requiredKeys: requiredQuery }),
    body: op.body ? valid(op.body, ids) : fc.constant(undefined),
    kind: fc.constant('valid'),
  }) as fc.Arbitrary<Draft>;
}

/**
 * Fields of a body that name a row of the client by id (`…_id`, `…_ids`, `id`), as paths. Ids that
 * are not ours are left out: a template number, and the vendors' own ids and keys.
 */
const ID_KEY = /(^|_)ids?$/;
const NOT_OUR_IDS = new Set(['template_id', 'client_id', 'payment_method_id', 'tax_id', 'external_id']);
function idFields(value: unknown): string[][] {
  return paths(value).filter((p) => {
    const key = p[p.length - 1]!;
    if (!ID_KEY.test(key) || NOT_OUR_IDS.has(key)) return false;
    const v = valueAt(value, p);
    return (
      typeof v === 'string' ||
      typeof v === 'number' ||
      (Array.isArray(v) && v.every((x) => typeof x === 'string' || typeof x === 'number'))
    );
  });
}

function valueAt(value: unknown, at: string[]): unknown {
  let v = value;
  for (const k of at) v = v !== null && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** Keys of an object value and of the objects in it, as paths. */
function paths(value: unknown, prefix: string[] = [], depth = 0): string[][] {
  if (depth > 4 || value === null || typeof value !== 'object') return [];
  const out: string[][] = [];
  for (const [k, v] of Object.entries(value)) {
    out.push([...prefix, k]);
    out.push(...paths(v, [...prefix, k], depth + 1));
  }
  return out;
}

function setAt(value: unknown, at: string[], to: unknown, remove = false): unknown {
  if (!at.length) return to;
  const copy: Record<string, unknown> = Array.isArray(value)
    ? ([...value] as unknown as Record<string, unknown>)
    : { ...(value as Record<string, unknown>) };
  const [head, ...rest] = at as [string, ...string[]];
  if (rest.length) copy[head] = setAt(copy[head], rest, to, remove);
  else if (remove) return Object.fromEntries(Object.entries(copy).filter(([k]) => k !== head));
  else copy[head] = to;
  return copy;
}

const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'application/json; charset=utf-16',
  'application/octet-stream',
  'image/png',
];
const RAW_BODIES = [
  'not json',
  '{',
  '{"a":',
  '[1,2,',
  'null',
  '""',
  '0',
  '\u0000',
  '{"a":"\\ud800"}',
  '{"a":"\\u0000"}',
  '{"__proto__":{"admin":true}}',
  '['.repeat(5_000) + ']'.repeat(5_000),
  '{"a":1,"a":2}',
  '{"id":9007199254740993,"limit":1e400,"from":-1e400}',
  '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b\r\n--x--',
];

/** One broken request for `op`: the valid draft with one thing made wrong. */
export function requestArbitrary(op: Operation, ids: IdPool): fc.Arbitrary<FuzzRequest> {
  const pathParams = op.params.filter((p) => p.in === 'path').map((p) => p.name);
  const queryParams = op.params.filter((p) => p.in === 'query').map((p) => p.name);
  const draft = draftOf(op, ids);
  const mutations: fc.Arbitrary<Draft>[] = [
    // Valid as generated (extra fields and all): reaches the handler; may write (2xx).
    draft,
    // One field of the body, at any depth, replaced by a hostile value.
    fc.tuple(draft, hostile, fc.nat()).map(([d, h, n]) => {
      const all = paths(d.body);
      if (!all.length) return { ...d, body: h, kind: 'body-hostile' };
      return { ...d, body: setAt(d.body, all[n % all.length]!, h), kind: 'field-hostile' };
    }),
    // A required field missing.
    fc.tuple(draft, fc.nat()).map(([d, n]) => {
      const req = op.body?.required ?? [];
      if (!req.length || d.body === null || typeof d.body !== 'object')
        return { ...d, body: undefined, kind: 'no-body' };
      return { ...d, body: setAt(d.body, [req[n % req.length]!], undefined, true), kind: 'missing-field' };
    }),
    // Extra fields, some hostile.
    fc
      .tuple(draft, fc.dictionary(fc.string({ maxLength: 12 }), hostile, { maxKeys: 3 }))
      .map(([d, extra]) => ({
        ...d,
        body:
          d.body && typeof d.body === 'object' && !Array.isArray(d.body) ? { ...d.body, ...extra } : extra,
        kind: 'extra-fields',
      })),
    // The whole body the wrong type.
    fc.tuple(draft, hostile).map(([d, h]) => ({ ...d, body: h, kind: 'body-wrong-type' })),
    // A body that is not JSON, or JSON under the wrong content type.
    fc
      .tuple(
        draft,
        fc.constantFrom(...RAW_BODIES),
        fc.constantFrom('application/json', ...WRONG_CONTENT_TYPES),
      )
      .map(([d, raw, contentType]) => ({ ...d, rawBody: raw, contentType, kind: 'raw-body' })),
    fc.tuple(draft, fc.constantFrom(...WRONG_CONTENT_TYPES)).map(([d, contentType]) => ({
      ...d,
      contentType,
      kind: 'wrong-content-type',
    })),
    // A query parameter hostile, or one the operation does not know, or repeated.
    fc.tuple(draft, hostile, fc.nat(), fc.boolean()).map(([d, h, n, repeat]) => {
      const name = queryParams.length ? queryParams[n % queryParams.length]! : 'unknown';
      return { ...d, query: { ...d.query, [name]: repeat ? [h, h] : h }, kind: 'query-hostile' };
    }),
  ];
  const foreign = ids.foreign;
  const weighted: fc.WeightedArbitrary<Draft>[] = [];
  if (op.body && foreign && Object.values(foreign).some((rows) => rows.length))
    // Another client's id in one id field of a valid body (issue 37): it names nothing of this
    // client. Thrice as likely as the others, since a draft without an id field falls back to valid.
    weighted.push({
      weight: 3,
      arbitrary: fc.tuple(draft, fc.nat()).map(([d, n]): Draft => {
        const spots = idFields(d.body);
        if (!spots.length) return d;
        const at = spots[n % spots.length]!;
        // Another client's row of the same table when the field says which, else any of its rows.
        const table = tableOfField(at);
        const rows = (table && foreign[table]?.length ? foreign[table] : Object.values(foreign).flat())!;
        const theirs = (like: unknown): string | number => {
          const same = rows.filter((r) => typeof r === (typeof like === 'number' ? 'number' : 'string'));
          const from = same.length ? same : rows;
          return from[n % from.length]!;
        };
        const current = valueAt(d.body, at);
        const value = Array.isArray(current)
          ? current.length
            ? current.map(theirs)
            : [theirs(undefined)]
          : theirs(current);
        return { ...d, body: setAt(d.body, at, value), kind: 'foreign-body-id', foreignIdAt: at.join('.') };
      }),
    });
  if (pathParams.length)
    mutations.push(
      fc
        .tuple(
          draft,
          fc.oneof(fc.constantFrom(...BAD_UUIDS), NUL, SURROGATE, fc.constant('A'.repeat(5_000)), fc.uuid()),
          fc.nat(),
        )
        .map(([d, bad, n]) => ({
          ...d,
          path: { ...d.path, [pathParams[n % pathParams.length]!]: bad },
          kind: 'path-hostile',
        })),
    );
  return fc
    .oneof(...mutations.map((arbitrary) => ({ arbitrary, weight: 1 })), ...weighted)
    .map((d) => toRequest(op, d));
}

function encodeQueryValue(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? '');
}

/**
 * encodeURIComponent, except that a lone UTF-16 surrogate (which it refuses) is sent as the bytes
 * a careless client would send: its code point in UTF-8 form (%ED%A0%80), which is not valid UTF-8.
 */
export function encode(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const pair = c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00;
    if (pair) {
      out += encodeURIComponent(s.slice(i, i + 2));
      i++;
    } else if (c >= 0xd800 && c <= 0xdfff) {
      out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
        .map((b) => `%${b.toString(16).toUpperCase()}`)
        .join('');
    } else out += encodeURIComponent(s[i]!);
  }
  return out;
}

function toRequest(op: Operation, d: Draft): FuzzRequest {
  let url = op.path.replace(/\{(\w+)\}/g, (_, name: string) => encode(d.path[name] ?? 'x'));
  const qs: string[] = [];
  for (const [k, v] of Object.entries(d.query)) {
    if (v === undefined) continue;
    const values = Array.isArray(v) && v.length === 2 && v[0] === v[1] ? v : [v];
    for (const one of values) qs.push(`${encode(k)}=${encode(encodeQueryValue(one))}`);
  }
  if (qs.length) url += `?${qs.join('&')}`;
  const headers: Record<string, string> = {};
  let payload: string | undefined;
  if (op.method !== 'GET') {
    if (d.rawBody !== undefined) payload = d.rawBody;
    else if (d.body !== undefined) payload = JSON.stringify(d.body);
    if (payload !== undefined) headers['content-type'] = d.contentType ?? 'application/json';
  }
  return {
    op: `${op.method} ${op.path}`,
    kind: d.kind,
    ...(d.foreignIdAt ? { foreignIdAt: d.foreignIdAt } : {}),
    method: op.method,
    url,
    headers,
    payload,
  };
}

// ---------------------------------------------------------------------------------------------------
// Writes, seen as they happen: a row trigger on every table logs the table and the operation.

/** Tables a refused request may still write, by design (none so far). */
/**
 * The audit log records attempts as well as changes (a failed sign-in, an export asked for: issue 44,
 * decision 0028), so a refused or read-only request may append to it by design.
 */
export const WRITABLE_ON_REFUSAL = new Set<string>(['audit_log', 'audit_chain_heads']);

/**
 * Puts a row-level trigger on every table of the public schema (of this test database only) that
 * notes each inserted, updated or deleted row in `fuzz_writes`; the function returned takes the
 * notes since its last call. A row trigger fires only for rows really written (an UPDATE that
 * matched nothing is silent), and one query per request is cheap where hashing every table was not.
 */
export async function watchWrites(app: FastifyInstance): Promise<() => Promise<string[]>> {
  const { rows } = (await app.database.execute(
    // Partitioned tables once (their partitions inherit the trigger), not each partition.
    `select c.relname as table_name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
        and c.relname not like '__drizzle%' order by 1`,
  )) as { rows: { table_name: string }[] };
  const tables = rows.map((r) => r.table_name).filter((t) => !WRITABLE_ON_REFUSAL.has(t));
  await app.database.execute(
    `create table if not exists fuzz_writes (t text not null, op text not null);
     create or replace function fuzz_note() returns trigger language plpgsql as $$
       begin insert into fuzz_writes values (TG_TABLE_NAME, TG_OP); return null; end $$;
     ${tables
       .map(
         (t) =>
           `create trigger fuzz_note after insert or update or delete on "${t}" for each row execute function fuzz_note();`,
       )
       .join('\n')}`,
  );
  return async () => {
    const { rows: notes } = (await app.database.execute(
      'delete from fuzz_writes returning t, op',
      [],
    )) as unknown as { rows: { t: string; op: string }[] };
    return [...new Set(notes.map((n) => `${n.op.toLowerCase()} ${n.t}`))];
  };
}

// ---------------------------------------------------------------------------------------------------
// The world and the run.

/** The demo data (as `npm start` seeds it), the demo owner signed in, working in Acme Robotics. */
export async function fuzzWorld(app: FastifyInstance) {
  await seedDemoAll(app);
  const owner = await signInOwner(app);
  const ids = await idPool(app, DEMO_CLIENTS.acme.id);
  // Northwind's ids: the demo owner is a member there too, but works in Acme.
  ids.foreign = (await idPool(app, DEMO_CLIENTS.agency.id)).byTable;
  return { owner, ids };
}

async function signInOwner(app: FastifyInstance): Promise<Browser> {
  const owner = await new Browser(app).signIn(DEMO_EMAIL, DEMO_PASSWORD);
  owner.clientId = DEMO_CLIENTS.acme.id;
  return owner;
}

export type FuzzOptions = {
  seed: number;
  /** Requests per operation. */
  runsPerOperation: number;
  maxMs?: number;
  /** Only operations whose "METHOD /path" matches. */
  only?: RegExp;
  onProgress?: (done: number, total: number) => void;
};

export async function fuzz(app: FastifyInstance, opts: FuzzOptions): Promise<FuzzStats> {
  const maxMs = opts.maxMs ?? 2_000;
  const seedStart = performance.now();
  const world = await fuzzWorld(app);
  const seedMs = performance.now() - seedStart;
  const ids = world.ids;
  let owner = world.owner;
  const writes = await watchWrites(app);
  const ops = (await operationsOf(app)).filter((o) => !opts.only || opts.only.test(`${o.method} ${o.path}`));
  const stats: FuzzStats = {
    operations: ops.length,
    requests: 0,
    byStatus: {},
    s5xx: 0,
    vendorUnreachable: 0,
    slow: 0,
    writesOn4xx: 0,
    writesOn2xx: 0,
    unnamed422: 0,
    foreignIdRequests: 0,
    foreignIdAccepted: 0,
    reSignIns: 0,
    maxMs: 0,
    seedMs,
    pictureMs: 0,
    slowest: [],
    findings: [],
  };
  let index = 0;
  for (const op of ops) {
    const requests = fc.sample(requestArbitrary(op, ids), {
      seed: opts.seed + index++,
      numRuns: opts.runsPerOperation,
    });
    for (const req of requests) {
      const started = performance.now();
      const res = await owner.request({
        method: req.method as InjectOptions['method'],
        url: req.url,
        headers: req.headers,
        payload: req.payload,
        // A fresh address each time: per-IP limits are not what is under test.
        remoteAddress: `10.${(stats.requests >> 16) & 255}.${(stats.requests >> 8) & 255}.${stats.requests & 255}`,
      });
      const ms = performance.now() - started;
      // 2 s on a machine with a core to spare; on one running more processes than it has cores (CI
      // beside other suites, five agents on two cores) the limit stretches by the run queue per core.
      const limit = maxMs * Math.max(1, loadavg()[0]! / availableParallelism());
      stats.requests++;
      stats.maxMs = Math.max(stats.maxMs, ms);
      stats.slowest.push({ op: req.op, kind: req.kind, status: res.statusCode, ms: Math.round(ms) });
      stats.slowest = stats.slowest.sort((a, b) => b.ms - a.ms).slice(0, 5);
      const bucket = `${Math.floor(res.statusCode / 100)}xx`;
      stats.byStatus[res.statusCode] = (stats.byStatus[res.statusCode] ?? 0) + 1;
      const find = (problem: string) =>
        stats.findings.push({
          request: req,
          status: res.statusCode,
          ms,
          problem,
          body: res.body.slice(0, 300),
        });
      const vendor =
        [502, 503, 504].includes(res.statusCode) &&
        /could not be reached|did not answer|unreachable/i.test(res.body) &&
        !res.body.includes(INTERNAL_ERROR_MESSAGE);
      if (vendor) stats.vendorUnreachable++;
      else if (res.statusCode >= 500) {
        stats.s5xx++;
        find('5xx');
      }
      if (ms > limit) {
        stats.slow++;
        find(`slow: ${ms.toFixed(0)} ms (limit ${limit.toFixed(0)} ms at load ${loadavg()[0]!.toFixed(1)})`);
      }
      if (res.statusCode === 422) {
        const body = res.json() as { errors?: { field?: string }[]; instructions?: unknown };
        const field = body.errors?.[0]?.field;
        // A refusal about the vendor, not the input, names no field by design: ad fields a CRM will
        // not let Rally create answer 422 with the instructions to create them by hand.
        if ((!field || field === 'request') && body.instructions === undefined) {
          stats.unnamed422++;
          find('422 without a field (PostgreSQL refused what the schema let through)');
        }
      }
      if (req.foreignIdAt) {
        stats.foreignIdRequests++;
        if (res.statusCode < 300) {
          stats.foreignIdAccepted++;
          find(`accepted another client's id at body.${req.foreignIdAt}`);
        }
      }
      const pictureStart = performance.now();
      const written = await writes();
      stats.pictureMs += performance.now() - pictureStart;
      if (bucket === '2xx' && written.length) stats.writesOn2xx++;
      if (bucket === '4xx' && written.length) {
        stats.writesOn4xx++;
        find(`wrote on a ${res.statusCode}: ${written.join(', ')}`);
      }
      if (res.statusCode === 401 || !owner.cookies.size) {
        // Something ended the session (a fuzzed sign-in as someone else, say): start a new one.
        owner = await signInOwner(app);
        stats.reSignIns++;
      }
    }
    opts.onProgress?.(stats.requests, ops.length * opts.runsPerOperation);
  }
  return stats;
}

/** A finding as one line, with enough to send the request again. */
export function describeFinding(f: Finding): string {
  const body = f.request.payload === undefined ? '' : ` body=${truncate(f.request.payload, 160)}`;
  return `${f.problem} [${f.status}, ${f.ms.toFixed(0)} ms] ${f.request.kind} ${f.request.method} ${truncate(f.request.url, 200)}${body} ct=${f.request.headers['content-type'] ?? '-'} → ${truncate(f.body, 200)}`;
}

function truncate(s: string, n: number): string {
  return s.length > n ? `${s.slice(0, n)}…(${s.length})` : s;
}
