import { afterAll, describe, expect, it } from 'vitest';
import { checkRequest, loadSpec, recordingProxy } from '../../../../../test/vendor-specs/check.ts';
import { demoSalesloftData, startFakeSalesloft } from '../../../../../test/fakes/salesloft.ts';
import { connectAndSyncTwice } from '../../../../../test/vendor-specs/sync-walk.ts';
import { oauthCredentialsFrom } from '../../vendor-http.ts';
import { createSalesloftAdapter } from './adapter.ts';

/**
 * Every request a Salesloft sync sends (connect, a first sync and a second one), checked against
 * Salesloft's own API definition (test/vendor-specs/salesloft-sync-*.json, dated, with its source):
 * the operation exists and each query parameter is documented. The definition is the 2019 harvest;
 * where the adapter relies on parameters documented only since, the gap is listed here.
 */

/** GET /v2/users.json lists no parameters in the 2019 definition; Salesloft's current docs do. */
const KNOWN_GAPS = new Set(
  ['visible_only', 'sort_by', 'sort_direction', 'per_page', 'page'].map(
    (q) => `GET /v2/users.json: query ${q} is not documented`,
  ),
);

describe("a Salesloft sync's requests match Salesloft's API definition", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('connect, first sync, second sync: documented operations and parameters only (no updated_at on /steps)', async () => {
    const fake = await startFakeSalesloft({ seed: demoSalesloftData() });
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const adapter = createSalesloftAdapter({
      apiUrl: proxy.url,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
    });
    const { first } = await connectAndSyncTwice(
      adapter,
      oauthCredentialsFrom(fake.grantTokens()),
      () => proxy.sent.length,
    );

    const spec = loadSpec('salesloft-sync-2026-12-05.json');
    const problems = proxy.sent.flatMap((r) => checkRequest(spec, r));
    expect(problems.filter((p) => !KNOWN_GAPS.has(p))).toEqual([]);
    const operations = new Set(proxy.sent.map((r) => `${r.method} ${r.path.replace(/\.json$/, '')}`));
    expect(operations).toEqual(
      new Set([
        'GET /v2/me',
        'GET /v2/team',
        'GET /v2/users',
        'GET /v2/cadences',
        'GET /v2/steps',
        'GET /v2/cadence_memberships',
        'GET /v2/people',
        'GET /v2/accounts',
        'GET /v2/actions',
      ]),
    );
    // For the closing note: requests of a first and of a second sync of the same data.
    console.info(
      `salesloft demo team: connect + first sync ${first} requests, second sync ${proxy.sent.length - first}`,
    );
  });
});
