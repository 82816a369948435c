import { afterAll, describe, expect, it } from 'vitest';
import { crmAdFieldsWorld } from '../../../test/ad-fields-crm-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { startFakeMarketo } from '../../../test/fakes/marketo.ts';
import { MARKETO_AD_FIELDS } from '../crm/adapters/marketo/ad-fields.ts';

/**
 * The write-back into Marketo lead fields (issue 38) on the real app against the fake: the fields
 * created through the lead schema endpoint (or instructions when the API role may not), every
 * matched lead written once through `POST /rest/v1/leads.json` (updateOnly, 300 a request), nothing
 * the second time, the neutral pair for a prospect that left, 606/615 in a 200 waited out, 607 and
 * a lead deleted in Marketo, a deleted field and a role that may not write leads said on the
 * connection.
 */
describe('ad fields written to Marketo leads', async () => {
  const marketo = await startFakeMarketo();
  afterAll(() => marketo.close());
  const slept: number[] = [];
  const app = await createTestApp({
    workers: false,
    adapters: { retry: { sleep: async (ms: number) => void slept.push(ms) } },
  });
  const clientId = await makeClient(app, 'Marketo writes');
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const world = await crmAdFieldsWorld(app, {
    clientId,
    source: 'marketo',
    credentials: {
      kind: 'client_credentials',
      clientId: marketo.clientId,
      clientSecret: marketo.clientSecret,
      baseUrl: marketo.restUrl,
      accessToken: null,
      expiresAt: null,
    },
  });
  const { image, click } = MARKETO_AD_FIELDS;
  const lead = (i: number, domain = 'mkto.example') =>
    marketo.addLead({ email: `l${i}@${domain}`, firstName: `L${i}`, lastName: 'Marketo' });
  // 320 leads on a cadence with ads (more than one request of 300), 2 not; all in a static list,
  // which is how Marketo's leads reach Rally.
  const people = Array.from({ length: 320 }, (_, i) => lead(i));
  const strangers = Array.from({ length: 2 }, (_, i) => lead(i, 'elsewhere.example'));
  const list = marketo.addList(
    'Outbound',
    [...people, ...strangers].map((l) => l.id),
  );
  const first = await world.cadence('First');
  const second = await world.cadence('Second');
  const token = new Map<number, string>();
  for (const p of people) token.set(p.id, await world.enrol(first, p.email!));
  const fieldsOf = (id: number) => {
    const v = marketo.valuesOf(id);
    return { image: v[image], click: v[click] };
  };
  const writes = () =>
    marketo.requests.filter((r) => r.method === 'POST' && r.path === '/rest/v1/leads.json');
  const sizes = () => writes().map((r) => (r.body as { input: unknown[] }).input.length);
  const base = `/v1/rest/client/${clientId}/ad_fields/${world.integrationId}`;
  await world.sync();

  it('without the schema permission "create" answers what to make in Field Management; with it, Rally makes them', async () => {
    marketo.setRole({ schemaCustomField: false });
    const refused = await owner.post(`${base}/create`);
    expect(refused.statusCode).toBe(422);
    expect(refused.json().message).toMatch(/Read-Write Schema Custom Field/);
    expect(refused.json().instructions).toMatch(/Admin › Field Management › New Custom Field/);
    marketo.setRole({ schemaCustomField: true });
    const made = await owner.post(`${base}/create`);
    expect(made.statusCode).toBe(200);
    expect(made.json()).toMatchObject({ image_field: image, click_field: click, enabled: true });
    expect(marketo.leadFields.get(image)).toMatchObject({
      displayName: 'Rally ad image URL',
      dataType: 'url',
    });
    const offered = (await owner.get(`${base}/available`)).json().items.map((f: { name: string }) => f.name);
    // Custom text fields only: Marketo's own (firstName, title…) are not offered.
    expect(offered).toEqual([click, image]);
  });

  it('the first run writes every matched lead once, in requests of 300 (updateOnly by id)', async () => {
    marketo.clearRequests();
    await world.write();
    for (const p of people) expect(fieldsOf(p.id)).toEqual(world.urls(token.get(p.id)!));
    for (const s of strangers) expect(fieldsOf(s.id)).toEqual({ image: undefined, click: undefined });
    expect(sizes()).toEqual([300, 20]);
    expect(writes()[0]!.body).toMatchObject({ action: 'updateOnly', lookupField: 'id' });
    expect(await world.listed(sdr)).toMatchObject({
      status: 'ready',
      targets_written: 320,
      targets_pending: 0,
      last_error: null,
    });
    expect(list.members).toHaveLength(322);
  });

  it('a second sync and run send nothing to Marketo', async () => {
    await world.sync();
    marketo.clearRequests();
    await world.write();
    expect(marketo.requests).toEqual([]);
  });

  it('a lead whose prospect left gets the neutral pair; one on two cadences gets the other one', async () => {
    const [gone, moved] = [people[0]!, people[1]!];
    const later = await world.enrol(second, moved.email!);
    await world.leave(first, gone.email!);
    await world.leave(first, moved.email!);
    marketo.clearRequests();
    await world.write();
    expect(fieldsOf(gone.id)).toEqual(world.neutral());
    expect(fieldsOf(moved.id)).toEqual(world.urls(later));
    expect(sizes()).toEqual([2]);
  });

  it('606 and 615 inside a 200 are waited out, and a lead deleted in Marketo is set aside (1004)', async () => {
    const more = Array.from({ length: 3 }, (_, i) => lead(400 + i));
    marketo.addList(
      'More',
      more.map((l) => l.id),
    );
    for (const p of more) token.set(p.id, await world.enrol(first, p.email!));
    await world.sync();
    marketo.deleteLead(more[0]!.id);
    marketo.failWithRateLimit(1);
    marketo.failWithConcurrency(1);
    slept.length = 0;
    await world.write();
    expect(slept).toEqual([20_000, 2_000]);
    for (const p of more.slice(1)) expect(fieldsOf(p.id)).toEqual(world.urls(token.get(p.id)!));
    expect(await world.refusal(String(more[0]!.id))).toMatch(/no longer exists in Marketo/);
    expect(await world.listed(sdr)).toMatchObject({ targets_failed: 1, last_error: null });
  });

  it('607 (the daily quota) ends the run with the reason on the connection; no call until it resets, then the next run goes on', async () => {
    const p = lead(500);
    marketo.addList('Later', [p.id]);
    await world.enrol(first, p.email!);
    await world.sync();
    marketo.failWithDailyQuota(1);
    await expect(world.write()).rejects.toThrow(/daily API quota is used up/);
    expect((await world.listed(sdr)).last_error).toMatch(
      /will be retried.*Marketo's daily API quota is used up \(error 607\).*midnight US Central/,
    );
    // Until the reset (midnight US Central) Rally asks Marketo nothing: every call would fail and count.
    const calls = marketo.requests.length;
    await expect(world.write()).rejects.toThrow(/daily API quota is used up/);
    expect(marketo.requests.length).toBe(calls);
    // The quota came back (the stored reset time has passed).
    await world.setCredentials({
      kind: 'client_credentials',
      clientId: marketo.clientId,
      clientSecret: marketo.clientSecret,
      baseUrl: marketo.restUrl,
      accessToken: null,
      expiresAt: null,
      quotaResetAt: new Date(Date.now() - 1000).toISOString(),
    });
    await world.write();
    expect(fieldsOf(p.id).click).toMatch(/\/c$/);
    expect((await world.listed(sdr)).last_error).toBeNull();
  });

  it('an API role without Read-Write Lead is told what to grant, and nothing is written', async () => {
    marketo.setRole({ readWriteLead: false });
    const p = lead(600);
    marketo.addList('Denied', [p.id]);
    await world.enrol(first, p.email!);
    await world.sync();
    await world.write();
    expect(fieldsOf(p.id)).toEqual({ image: undefined, click: undefined });
    expect((await world.listed(sdr)).last_error).toMatch(/"Read-Write Lead" permission/);
    marketo.setRole({ readWriteLead: true });
  });

  it('a field deleted in Marketo stops the run with a clear error on the connection', async () => {
    marketo.leadFields.delete(click);
    const p = lead(700);
    marketo.addList('Gone field', [p.id]);
    await world.enrol(first, p.email!);
    await world.sync();
    marketo.clearRequests();
    await world.write();
    expect(writes()).toEqual([]);
    expect((await world.listed(sdr)).last_error).toMatch(
      /Marketo lead field rallyAdClickURL no longer exists/,
    );
  });
});
