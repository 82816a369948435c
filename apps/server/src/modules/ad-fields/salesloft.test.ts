import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import {
  adFieldSettings,
  adFieldValues,
  cadences,
  integrations,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';
import { adUrls, neutralAdUrls } from '../tracking/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { SALESLOFT_SCOPES, startFakeSalesloft } from '../../../test/fakes/salesloft.ts';
import type { SeedMembership } from '../../../test/fakes/salesloft.ts';

/**
 * The write-back into Salesloft person custom fields (issue 38), run directly on the real app
 * against the fake: every target once, nothing the second time, a target that leaves, rate limits
 * waited out, a missing field and a missing scope said on the connection.
 */
describe('ad fields written to Salesloft people', async () => {
  const membership = (id: number, cadence: number, person: number): SeedMembership => ({
    id,
    cadence_id: cadence,
    person_id: person,
    user_id: 1,
    day: 1,
  });
  const salesloft = await startFakeSalesloft({
    seed: {
      users: [{ id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@write.example', team_admin: true }],
      customFields: [{ name: 'Ad image' }, { name: 'Ad click' }, { name: 'Notes' }],
      people: Array.from({ length: 30 }, (_, i) => ({
        id: i + 1,
        first_name: `P${i + 1}`,
        last_name: 'Write',
        email_address: `p${i + 1}@write.example`,
      })),
      cadences: [401, 402, 403].map((id) => ({
        id,
        name: `Cadence ${id}`,
        owner_id: 1,
        steps: [{ day: 1 }],
      })),
      // People 1–8 on cadence 401; 11 and 12 on 403, whose ads stay off.
      memberships: [
        ...Array.from({ length: 8 }, (_, i) => membership(i + 1, 401, i + 1)),
        membership(11, 403, 11),
        membership(12, 403, 12),
      ],
    },
  });
  afterAll(() => salesloft.close());
  const slept: number[] = [];
  const app = await createTestApp({
    workers: false,
    env: {
      SALESLOFT_CLIENT_ID: salesloft.clientId,
      SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
      SALESLOFT_API_URL: salesloft.apiUrl,
      SALESLOFT_AUTH_URL: salesloft.authUrl,
    },
    // A rate-limit wait moves the fake's clock instead of the test's.
    adapters: {
      retry: {
        sleep: async (ms: number) => {
          slept.push(ms);
          salesloft.advanceClock(ms);
        },
      },
    },
  });
  const box = createSecretBox(app.config.appSecret);
  const clientId = await makeClient(app, 'Writes');
  const seal = (scope?: string[]) =>
    box.encrypt(JSON.stringify(oauthCredentialsFrom(salesloft.grantTokens(1, scope))));
  const [row] = await app.db
    .insert(integrations)
    .values({ clientId, source: 'salesloft', accountName: 'Team', credentialsEnc: seal() })
    .returning({ id: integrations.id });
  const integrationId = row!.id;
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const publicUrl = app.config.publicUrl;

  const sync = () => app.integrationSync.run({ integrationId });
  const write = () => app.adFields.writer.run({ integrationId });
  const adsOn = (...externalIds: string[]) =>
    app.db
      .update(cadences)
      .set({ isSuper: true })
      .where(and(eq(cadences.integrationId, integrationId), inArray(cadences.externalId, externalIds)));
  /** The token of the target of `person` on `cadence`. */
  async function tokenOf(person: number, cadence: number): Promise<string> {
    const [t] = await app.db
      .select({ token: targets.token })
      .from(targets)
      .innerJoin(prospects, eq(prospects.id, targets.prospectId))
      .innerJoin(cadences, eq(cadences.id, targets.cadenceId))
      .where(
        and(
          eq(prospects.integrationId, integrationId),
          eq(prospects.externalId, String(person)),
          eq(cadences.externalId, String(cadence)),
        ),
      );
    return t!.token;
  }
  const fieldsOf = (person: number) => salesloft.customFieldsOf(person);
  const urlsOf = (token: string) => {
    const u = adUrls(publicUrl, token);
    return { 'Ad image': u.image, 'Ad click': u.click };
  };
  const puts = () => salesloft.requests.filter((r) => r.method === 'PUT');
  const settings = async () =>
    (await app.db.select().from(adFieldSettings).where(eq(adFieldSettings.integrationId, integrationId)))[0]!;
  const listed = async () => (await sdr.get(`/v1/rest/client/${clientId}/ad_fields`)).json().items[0];

  await sync();
  await adsOn('401', '402');
  // People 5–10 join cadence 402 later: for 5–8 it is their most recently started cadence.
  salesloft.seed({ memberships: Array.from({ length: 6 }, (_, i) => membership(21 + i, 402, i + 5)) });
  await sync();
  await app.db.insert(adFieldSettings).values({
    integrationId,
    clientId,
    imageField: 'Ad image',
    clickField: 'Ad click',
    enabled: true,
  });

  it("the first run writes each person's most recently started target once, and no one without ads", async () => {
    salesloft.clearRequests();
    await write();
    for (const p of [1, 2, 3, 4]) expect(fieldsOf(p)).toEqual(urlsOf(await tokenOf(p, 401)));
    for (const p of [5, 6, 7, 8, 9, 10]) expect(fieldsOf(p)).toEqual(urlsOf(await tokenOf(p, 402)));
    // Cadence 403's ads are off; person 13 is on no cadence.
    for (const p of [11, 12, 13]) expect(fieldsOf(p)).toEqual({});
    expect(
      puts()
        .map((r) => r.path)
        .sort(),
    ).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((p) => `/v2/people/${p}`).sort());
    // The ten people were read in one request before writing (100 a batch).
    expect(salesloft.apiRequests('people').length).toBe(1);
    expect(await listed()).toMatchObject({
      status: 'ready',
      targets_written: 10,
      targets_pending: 0,
      targets_failed: 0,
      last_error: null,
    });
    expect((await listed()).last_written_at).not.toBeNull();
  });

  it('a second run sends nothing to Salesloft', async () => {
    salesloft.clearRequests();
    await sync();
    salesloft.clearRequests();
    await write();
    expect(salesloft.requests).toEqual([]);
  });

  it('a person who left every cadence gets the neutral pair; one who left one falls back to the other', async () => {
    salesloft.update('membership', 1, { current_state: 'removed' });
    salesloft.update('membership', 25, { current_state: 'completed' }); // person 9 left 402 (their only one)
    salesloft.update('membership', 21, { current_state: 'removed' }); // person 5 left 402, still on 401
    await sync();
    salesloft.clearRequests();
    await write();
    const neutral = neutralAdUrls(publicUrl);
    expect(fieldsOf(1)).toEqual({ 'Ad image': neutral.image, 'Ad click': neutral.click });
    expect(fieldsOf(9)).toEqual({ 'Ad image': neutral.image, 'Ad click': neutral.click });
    expect(fieldsOf(5)).toEqual(urlsOf(await tokenOf(5, 401)));
    expect(
      puts()
        .map((r) => r.path)
        .sort(),
    ).toEqual(['/v2/people/1', '/v2/people/5', '/v2/people/9']);
    // The neutral pair answers without a token: a transparent image and a plain page, nothing counted.
    const image = await app.inject({ url: new URL(neutral.image).pathname });
    expect(image.statusCode).toBe(200);
    expect(image.headers['content-type']).toBe('image/png');
    const page = await app.inject({ url: new URL(neutral.click).pathname });
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(/Thanks for your interest/);
    expect(await listed()).toMatchObject({ targets_written: 8, targets_pending: 0 });
  });

  it("Salesloft's rate limit is waited out (no Retry-After: a minute) and every person is written", async () => {
    salesloft.seed({ memberships: Array.from({ length: 8 }, (_, i) => membership(31 + i, 401, 14 + i)) });
    await sync();
    salesloft.setRateLimitPerMinute(3);
    slept.length = 0;
    salesloft.clearRequests();
    try {
      await write();
    } finally {
      salesloft.setRateLimitPerMinute(600);
    }
    expect(salesloft.requests.some((r) => r.status === 429)).toBe(true);
    expect(slept.length).toBeGreaterThan(0);
    expect(slept.every((ms) => ms === 60_000)).toBe(true);
    for (let p = 14; p < 22; p++) expect(fieldsOf(p)).toEqual(urlsOf(await tokenOf(p, 401)));
    expect(puts().filter((r) => r.status === 200)).toHaveLength(8);
    expect((await settings()).lastError).toBeNull();
  });

  it('a person deleted in Salesloft is counted as refused, and not asked for again', async () => {
    salesloft.seed({ memberships: [membership(41, 401, 22)] });
    await sync();
    salesloft.deletePerson(22);
    await write();
    const [refused] = await app.db
      .select()
      .from(adFieldValues)
      .where(and(eq(adFieldValues.integrationId, integrationId), eq(adFieldValues.recordId, '22')));
    expect(refused?.failedReason).toMatch(/no longer exists/);
    expect(await listed()).toMatchObject({ targets_failed: 1, last_error: null });
    salesloft.clearRequests();
    await write();
    expect(salesloft.requests).toEqual([]);
  });

  it('a field deleted in Salesloft stops the run with a clear error on the connection', async () => {
    salesloft.deleteCustomField('Ad click');
    salesloft.seed({ memberships: [membership(42, 401, 23)] });
    await sync();
    salesloft.clearRequests();
    await write();
    expect(puts()).toEqual([]);
    expect(await listed()).toMatchObject({
      status: 'error',
      last_error: expect.stringMatching(/Salesloft person field "Ad click" no longer exists/),
    });
    salesloft.seed({ customFields: [{ name: 'Ad click' }] });
    await write();
    expect(fieldsOf(23)).toEqual(urlsOf(await tokenOf(23, 401)));
    expect((await listed()).status).toBe('ready');
  });

  it('a connection without people:write is told to reconnect, and nothing is written', async () => {
    await app.db
      .update(integrations)
      .set({ credentialsEnc: seal(SALESLOFT_SCOPES.filter((s) => s !== 'people:write')) })
      .where(eq(integrations.id, integrationId));
    salesloft.seed({ memberships: [membership(43, 401, 24)] });
    await sync();
    await write();
    expect(fieldsOf(24)).toEqual({});
    expect((await listed()).last_error).toMatch(/lacks the people:write permission.*Reconnect Salesloft/);
  });
});
