import { afterAll, describe, expect, it } from 'vitest';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';
import { sequenceAdFieldsWorld } from '../../../test/ad-fields-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { OUTREACH_SCOPES, startFakeOutreach } from '../../../test/fakes/outreach.ts';
import type { FakeSequenceStateInput } from '../../../test/fakes/outreach.ts';

/**
 * The write-back into Outreach prospect custom fields (issue 38) on the real app against the fake:
 * every target once, nothing the second time, a target that leaves, the hourly limit waited out
 * (Retry-After), a missing scope said on the connection.
 */
describe('ad fields written to Outreach prospects', async () => {
  let clock = Date.UTC(2026, 5, 1, 9, 0, 0);
  const state = (id: number, sequenceId: number, prospectId: number): FakeSequenceStateInput => ({
    id,
    sequenceId,
    prospectId,
    userId: 11,
    stepOrder: 1,
    state: 'active',
  });
  const outreach = await startFakeOutreach({
    now: () => clock,
    data: {
      users: [{ id: 11, firstName: 'Ana', lastName: 'Diaz', email: 'ana@acme.example' }],
      sequences: [21, 22, 23].map((id) => ({
        id,
        name: `Sequence ${id}`,
        ownerId: 11,
        steps: [{ id: id * 10 }],
      })),
      prospects: Array.from({ length: 20 }, (_, i) => ({
        id: 31 + i,
        firstName: `P${i}`,
        lastName: 'Out',
        emails: [`p${i}@out.example`],
      })),
      // 31–36 on 21; 39 on 23 (ads off).
      sequenceStates: [...[31, 32, 33, 34, 35, 36].map((p, i) => state(41 + i, 21, p)), state(49, 23, 39)],
    },
  });
  afterAll(() => outreach.close());
  const slept: number[] = [];
  const app = await createTestApp({
    workers: false,
    env: {
      OUTREACH_CLIENT_ID: outreach.clientId,
      OUTREACH_CLIENT_SECRET: outreach.clientSecret,
      OUTREACH_API_URL: outreach.apiUrl,
      OUTREACH_AUTH_URL: outreach.authUrl,
    },
    adapters: {
      retry: {
        sleep: async (ms: number) => {
          slept.push(ms);
          clock += ms;
        },
      },
    },
  });
  const clientId = await makeClient(app, 'Outreach writes');
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const world = await sequenceAdFieldsWorld(app, {
    clientId,
    source: 'outreach',
    credentials: oauthCredentialsFrom(outreach.issueTokens({ userId: 11 })),
  });
  const custom = (p: number) => {
    const a = outreach.get('prospect', p)!;
    return { image: a.custom149, click: a.custom150 };
  };
  const patches = () => outreach.requests().filter((r) => r.method === 'PATCH');

  await world.sync();
  await world.adsOn('21', '22');
  // 35–38 join sequence 22 later: for 35 and 36 it is their most recently started one.
  outreach.seed({ sequenceStates: [35, 36, 37, 38].map((p, i) => state(51 + i, 22, p)) });
  await world.sync();
  await world.enable('custom149', 'custom150');

  it("the first run writes each prospect's most recently started target into its two custom fields", async () => {
    outreach.clearRequests();
    await world.write();
    for (const p of [31, 32, 33, 34]) expect(custom(p)).toEqual(world.urls(await world.tokenOf(p, 21)));
    for (const p of [35, 36, 37, 38]) expect(custom(p)).toEqual(world.urls(await world.tokenOf(p, 22)));
    for (const p of [39, 40]) expect(custom(p)).toEqual({ image: undefined, click: undefined });
    expect(patches()).toHaveLength(8);
    // Each PATCH is JSON:API with the media type Outreach requires (415 otherwise).
    expect(patches().every((r) => r.status === 200)).toBe(true);
    expect(await world.listed(sdr)).toMatchObject({ status: 'ready', targets_written: 8, last_error: null });
  });

  it('a second run sends nothing to Outreach', async () => {
    await world.sync();
    outreach.clearRequests();
    await world.write();
    expect(outreach.requests()).toEqual([]);
  });

  it('a prospect who finished every sequence gets the neutral pair; one still on another falls back to it', async () => {
    outreach.mutate('sequenceState', 41, { state: 'finished' }); // 31 leaves 21, on no other
    outreach.mutate('sequenceState', 51, { state: 'finished' }); // 35 leaves 22, still on 21
    await world.sync();
    outreach.clearRequests();
    await world.write();
    expect(custom(31)).toEqual(world.neutral());
    expect(custom(35)).toEqual(world.urls(await world.tokenOf(35, 21)));
    expect(
      patches()
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/api/v2/prospects/31', '/api/v2/prospects/35']);
  });

  it("Outreach's hourly limit is waited out as its Retry-After says", async () => {
    outreach.seed({ sequenceStates: [41, 42, 43, 44, 45].map((p, i) => state(61 + i, 21, p)) });
    await world.sync();
    outreach.failNext(2, 429, 7);
    slept.length = 0;
    await world.write();
    expect(slept).toEqual([7000, 7000]);
    for (const p of [41, 42, 43, 44, 45]) expect(custom(p)).toEqual(world.urls(await world.tokenOf(p, 21)));
    expect((await world.settings()).lastError).toBeNull();
  });

  it('a connection made without prospects.write is told to reconnect, and nothing is written', async () => {
    await world.setCredentials(
      oauthCredentialsFrom(
        outreach.issueTokens({
          userId: 11,
          scopes: OUTREACH_SCOPES.filter((s) => !s.startsWith('prospects.')).concat('prospects.read'),
        }),
      ),
    );
    outreach.seed({ sequenceStates: [state(71, 21, 46)] });
    await world.sync();
    await world.write();
    expect(custom(46)).toEqual({ image: undefined, click: undefined });
    expect((await world.listed(sdr)).last_error).toMatch(
      /lacks the prospects\.write permission.*Reconnect Outreach/,
    );
  });

  it('fields that are not custom1…custom150 stop the run with a clear error', async () => {
    await world.setCredentials(oauthCredentialsFrom(outreach.issueTokens({ userId: 11 })));
    await world.enable('custom149', 'custom151');
    await world.write();
    expect((await world.listed(sdr)).last_error).toMatch(
      /"custom151" is not an Outreach prospect custom field/,
    );
    await world.enable('custom149', 'custom150');
    await world.write();
    expect(custom(46)).toEqual(world.urls(await world.tokenOf(46, 21)));
    expect((await world.listed(sdr)).last_error).toBeNull();
  });
});
