import { afterAll, describe, expect, it } from 'vitest';
import { sequenceAdFieldsWorld } from '../../../test/ad-fields-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { startFakeApollo } from '../../../test/fakes/apollo.ts';
import type { CampaignStatusSpec } from '../../../test/fakes/apollo.ts';

/**
 * The write-back into Apollo contact custom fields (issue 38) on the real app against the fake:
 * batched through `POST /contacts/bulk_update` (100 a request), nothing the second time, a target
 * that leaves, the minute window waited out, a deleted contact, a missing field and a key that may
 * not write, each said on the connection.
 */
describe('ad fields written to Apollo contacts', async () => {
  // One second past a whole minute: no rate-limit window rolls over by itself mid-test.
  const apollo = await startFakeApollo({ now: Date.UTC(2026, 0, 5, 9, 0, 1) });
  afterAll(() => apollo.close());
  const slept: number[] = [];
  const app = await createTestApp({
    workers: false,
    env: { APOLLO_API_URL: apollo.apiUrl },
    adapters: {
      retry: {
        sleep: async (ms: number) => {
          slept.push(ms);
          apollo.clock.advance(ms);
        },
      },
    },
  });
  const clientId = await makeClient(app, 'Apollo writes');
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const world = await sequenceAdFieldsWorld(app, {
    clientId,
    source: 'apolloio',
    credentials: { kind: 'api_key', apiKey: apollo.masterKey },
  });

  const rep = apollo.addUser({ first_name: 'Dana', last_name: 'Rep', email: 'dana@apollo.example' });
  const image = apollo.addCustomField({ label: 'Ad image', modality: 'contact', type: 'string' });
  const click = apollo.addCustomField({ label: 'Ad click', modality: 'contact', type: 'string' });
  const [first, second, quiet] = ['First', 'Second', 'Quiet'].map((name) =>
    apollo.addSequence({ name, user_id: rep.id, active: true, steps: [{ wait_time: 0 }] }),
  );
  const enrol = (sequenceId: string): CampaignStatusSpec => ({
    emailer_campaign_id: sequenceId,
    status: 'active',
    current_step_position: 1,
    added_by_user_id: rep.id,
  });
  // 120 contacts on the first sequence: more than one request of 100.
  const people = Array.from({ length: 120 }, (_, i) =>
    apollo.addContact({
      first_name: `C${i}`,
      last_name: 'Apollo',
      contact_campaign_statuses: [enrol(first!.id)],
    }),
  );
  const onQuiet = apollo.addContact({
    first_name: 'Q',
    last_name: 'Quiet',
    contact_campaign_statuses: [enrol(quiet!.id)],
  });
  const fieldsOf = (id: string) => {
    const c = apollo.contacts.get(id)!.typed_custom_fields;
    return { image: c[image.id], click: c[click.id] };
  };
  const bulk = () => apollo.requests.filter((r) => r.path === '/contacts/bulk_update');

  await world.sync();
  await world.adsOn(first!.id, second!.id);
  await world.enable(image.id, click.id);

  it('the first run writes every contact in requests of 100', async () => {
    apollo.clearRequests();
    await world.write();
    for (const c of people) expect(fieldsOf(c.id)).toEqual(world.urls(await world.tokenOf(c.id, first!.id)));
    expect(fieldsOf(onQuiet.id)).toEqual({ image: undefined, click: undefined });
    expect(
      bulk().map((r) => (r.body as { contact_attributes: unknown[] }).contact_attributes.length),
    ).toEqual([100, 20]);
    expect(await world.listed(sdr)).toMatchObject({
      status: 'ready',
      targets_written: 120,
      targets_pending: 0,
    });
  });

  it('a second run sends nothing to Apollo', async () => {
    await world.sync();
    apollo.clearRequests();
    await world.write();
    expect(apollo.requests).toEqual([]);
  });

  it('a contact who finished its sequence gets the neutral pair; one who joined another gets that one', async () => {
    apollo.setCampaignStatus(people[0]!.id, first!.id, { status: 'finished' });
    // A status change alone need not move updated_at (issue 40 item 5); here the contact is edited too.
    apollo.updateContact(people[0]!.id, (c) => {
      c.title = 'Finished';
    });
    apollo.updateContact(people[1]!.id, (c) => {
      c.contact_campaign_statuses.push({
        ...c.contact_campaign_statuses[0]!,
        id: apollo.newId(),
        emailer_campaign_id: second!.id,
      });
    });
    await world.sync();
    apollo.clearRequests();
    await world.write();
    expect(fieldsOf(people[0]!.id)).toEqual(world.neutral());
    expect(fieldsOf(people[1]!.id)).toEqual(world.urls(await world.tokenOf(people[1]!.id, second!.id)));
    expect(bulk()).toHaveLength(1);
  });

  it("Apollo's minute window is waited out (no Retry-After: a minute), and a deleted contact is set aside", async () => {
    const more = Array.from({ length: 3 }, (_, i) =>
      apollo.addContact({
        first_name: `M${i}`,
        last_name: 'More',
        contact_campaign_statuses: [enrol(first!.id)],
      }),
    );
    await world.sync();
    apollo.deleteContact(more[0]!.id);
    apollo.failNext(1, 429);
    slept.length = 0;
    await world.write();
    expect(slept).toEqual([60_000]);
    expect(fieldsOf(more[1]!.id)).toEqual(world.urls(await world.tokenOf(more[1]!.id, first!.id)));
    expect(fieldsOf(more[2]!.id)).toEqual(world.urls(await world.tokenOf(more[2]!.id, first!.id)));
    expect(await world.listed(sdr)).toMatchObject({ targets_failed: 1, last_error: null });
  });

  it('a custom field deleted in Apollo stops the run with a clear error on the connection', async () => {
    apollo.customFields.delete(click.id);
    apollo.addContact({ first_name: 'N', last_name: 'New', contact_campaign_statuses: [enrol(first!.id)] });
    await world.sync();
    await world.write();
    expect((await world.listed(sdr)).last_error).toMatch(/Apollo contact fields chosen no longer exists/);
    apollo.customFields.set(click.id, click);
  });

  it('a plain API key (no bulk update, no fields) is told to use a master key', async () => {
    await world.setCredentials({ kind: 'api_key', apiKey: apollo.plainKey });
    await world.write();
    expect((await world.listed(sdr)).last_error).toMatch(
      /did not let this API key use api\/v1\/fields\/index/,
    );
  });
});
