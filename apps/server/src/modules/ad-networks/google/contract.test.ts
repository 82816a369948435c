import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { recordingProxy } from '../../../../test/vendor-specs/check.ts';
import type { SentRequest } from '../../../../test/vendor-specs/check.ts';
import { startFakeGoogleAds } from '../../../../test/fakes/google-ads.ts';
import { createGoogleAdsAdapter } from './adapter.ts';
import { hashEmailForGoogle } from './normalise.ts';

/**
 * Every Data Manager API request the Google Ads adapter sends (create, read and rename a user list,
 * ingest and remove members), checked against Google's own discovery document for the API (an
 * excerpt, dated, in test/vendor-specs/google-datamanager-2026-12-05.json): the method exists for
 * the HTTP verb and path, query parameters are documented, every body key is a documented property
 * (recursively through `$ref`s and arrays), enum values are among the documented ones, and nothing
 * read-only or deprecated is sent; and the reply fields the adapter reads are documented.
 */

type Schema = {
  $ref?: string;
  type?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  readOnly?: boolean;
  deprecated?: boolean;
};
type Method = {
  httpMethod: string;
  path: string;
  parameters?: Record<string, { location: string; pattern?: string }>;
  request?: { $ref: string };
  response?: { $ref: string };
};
type Resource = { methods?: Record<string, Method>; resources?: Record<string, Resource> };
type Discovery = { resources: Record<string, Resource>; schemas: Record<string, Schema> };

const here = path.dirname(fileURLToPath(import.meta.url));
const spec = JSON.parse(
  readFileSync(path.join(here, '../../../../test/vendor-specs/google-datamanager-2026-12-05.json'), 'utf8'),
) as Discovery;

function methods(resources: Record<string, Resource>): Method[] {
  return Object.values(resources).flatMap((r) => [
    ...Object.values(r.methods ?? {}),
    ...methods(r.resources ?? {}),
  ]);
}

/** The documented method for a request: `{+name}` path parameters match their pattern. */
function methodOf(req: { method: string; path: string }): Method | null {
  for (const m of methods(spec.resources)) {
    if (m.httpMethod !== req.method) continue;
    const source = m.path.replace(/\{\+?(\w+)\}/g, (_, name: string) => {
      const pattern = m.parameters?.[name]?.pattern;
      return `(${pattern ? pattern.replace(/^\^|\$$/g, '') : '[^/]+'})`;
    });
    if (new RegExp(`^/${source}$`).test(req.path)) return m;
  }
  return null;
}

/** What in `value` the schema does not document, with where it is. */
function problemsIn(schema: Schema | undefined, value: unknown, at: string): string[] {
  if (!schema) return [`${at}: no documented schema`];
  if (schema.$ref) return problemsIn(spec.schemas[schema.$ref], value, at);
  if (schema.enum && !schema.enum.includes(String(value)))
    return [`${at}: ${String(value)} is not a documented value`];
  if (schema.type === 'array')
    return Array.isArray(value)
      ? value.flatMap((v, i) => problemsIn(schema.items, v, `${at}[${i}]`))
      : [`${at}: not an array`];
  if (schema.type === 'object') {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return [`${at}: not an object`];
    return Object.entries(value).flatMap(([k, v]) => {
      const p = schema.properties?.[k];
      if (!p) return [`${at}.${k}: undocumented`];
      if (p.readOnly) return [`${at}.${k}: read-only, not to be sent`];
      if (p.deprecated) return [`${at}.${k}: deprecated`];
      return problemsIn(p, v, `${at}.${k}`);
    });
  }
  if (schema.type === 'string' && typeof value !== 'string') return [`${at}: not a string`];
  if (schema.type === 'boolean' && typeof value !== 'boolean') return [`${at}: not a boolean`];
  return [];
}

function checkRequest(req: SentRequest): string[] {
  const m = methodOf(req);
  if (!m) return [`${req.method} ${req.path}: no such method`];
  const where = `${req.method} ${req.path}`;
  const query = [...req.query.keys()]
    .filter((k) => m.parameters?.[k]?.location !== 'query')
    .map((k) => `${where}: query ${k} undocumented`);
  const body =
    req.body === undefined
      ? m.request
        ? [`${where}: no body`]
        : []
      : problemsIn(m.request, req.body, `${where} body`);
  return [...query, ...body];
}

const propsOf = (name: string) => Object.keys(spec.schemas[name]?.properties ?? {});

describe("the Google Ads adapter's Data Manager API requests match Google's discovery document", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('user list create, read, rename; members ingest and remove: documented shapes only', async () => {
    const fake = await startFakeGoogleAds();
    const proxy = await recordingProxy(fake.url);
    closers.push(fake.close, proxy.close);
    const google = createGoogleAdsAdapter(
      {
        apiUrl: fake.url,
        apiVersion: fake.version,
        dataManagerUrl: proxy.url,
        authUrl: fake.url,
        tokenUrl: fake.url,
        appId: fake.clientId,
        appSecret: fake.clientSecret,
        developerToken: fake.developerToken,
      },
      { retry: { sleep: async () => undefined, baseDelayMs: 1 } },
    );
    const { accessToken, refreshToken } = fake.grant();
    const creds = { kind: 'oauth' as const, accessToken, refreshToken, expiresAt: null };
    const ctx = { credentials: () => creds, saveCredentials: async () => undefined };
    const hashes = ['ana@example.com', 'bo.b+x@gmail.com'].map((e) => hashEmailForGoogle(e)!);

    const { id } = await google.createAudience(ctx, '1234567890', {
      name: 'Rally · Contract',
      description: 'test',
    });
    await google.addMembers(ctx, id, hashes);
    await google.removeMembers(ctx, id, hashes.slice(0, 1));
    await google.updateAudience(ctx, id, { name: 'Rally · Contract 2', description: 'test' });
    const read = await google.readAudience(ctx, id);
    expect(read.matchedLowerBound).toBe(1);

    const operations = proxy.sent.map((r) => `${r.method} ${r.path.replace(/\d+/g, '{id}')}`);
    expect(operations).toEqual([
      'POST /v{id}/accountTypes/GOOGLE_ADS/accounts/{id}/userLists',
      'POST /v{id}/audienceMembers:ingest',
      'POST /v{id}/audienceMembers:remove',
      'PATCH /v{id}/accountTypes/GOOGLE_ADS/accounts/{id}/userLists/{id}',
      'GET /v{id}/accountTypes/GOOGLE_ADS/accounts/{id}/userLists/{id}',
    ]);
    expect(proxy.sent.flatMap(checkRequest)).toEqual([]);

    // What the adapter reads from the replies is documented.
    expect(propsOf('UserList')).toEqual(
      expect.arrayContaining(['name', 'displayName', 'membershipStatus', 'closingReason', 'sizeInfo']),
    );
    expect(propsOf('SizeInfo')).toEqual(['displayNetworkMembersCount', 'searchNetworkMembersCount']);
  });

  it('the check is not vacuous: a misspelt key, a wrong enum and a read-only field are caught', () => {
    const ingest = { method: 'POST', path: '/v1/audienceMembers:ingest', query: new URLSearchParams() };
    expect(
      checkRequest({
        ...ingest,
        body: { audience_members: [], encoding: 'HEXADECIMAL', destinations: [{ operatingAccount: {} }] },
      }),
    ).toEqual([
      'POST /v1/audienceMembers:ingest body.audience_members: undocumented',
      'POST /v1/audienceMembers:ingest body.encoding: HEXADECIMAL is not a documented value',
    ]);
    expect(
      checkRequest({
        method: 'POST',
        path: '/v1/accountTypes/GOOGLE_ADS/accounts/1/userLists',
        query: new URLSearchParams(),
        body: { displayName: 'x', sizeInfo: {} },
      }),
    ).toEqual([
      'POST /v1/accountTypes/GOOGLE_ADS/accounts/1/userLists body.sizeInfo: read-only, not to be sent',
    ]);
    expect(
      checkRequest({
        method: 'DELETE',
        path: '/v1/audienceMembers:ingest',
        query: new URLSearchParams(),
        body: undefined,
      }),
    ).toEqual(['DELETE /v1/audienceMembers:ingest: no such method']);
  });
});
