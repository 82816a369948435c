import { afterAll, describe, expect, it } from 'vitest';
import { adUrls } from '../../src/modules/tracking/index.ts';
import { Caller, crashRig, poll, registerOwner, withDatabase } from './crash-kit.ts';
import { startServer, stopServer } from '../server-process.ts';
import { startFakeApollo } from '../fakes/apollo.ts';

const CONTACTS = 3_000;
const BATCH = 100; // Apollo's synchronous bulk update
const STORED = 10; // batches written and stored before the kill

type Listed = { integration_id: number; status: string; targets_written: number; targets_pending: number };

describe('issue 38 "a crash mid-write finishes once" (Apollo ad fields)', async () => {
  const fake = await startFakeApollo();
  afterAll(async () => {
    fake.release();
    await fake.close();
  });
  const rig = await crashRig('ad-fields-crash', { JOB_HEARTBEAT_SECONDS: '10' });
  const rep = fake.addUser({ first_name: 'Dana', last_name: 'Rep', email: 'dana@crash.example' });
  const sequence = fake.addSequence({
    name: 'Outbound',
    user_id: rep.id,
    active: true,
    steps: [{ wait_time: 0 }],
  });
  const image = fake.addCustomField({ label: 'Ad image', modality: 'contact', type: 'string' });
  const click = fake.addCustomField({ label: 'Ad click', modality: 'contact', type: 'string' });
  for (let i = 0; i < CONTACTS; i++) {
    fake.addContact({
      first_name: `C${i}`,
      last_name: 'Crash',
      contact_campaign_statuses: [
        {
          emailer_campaign_id: sequence.id,
          status: 'active',
          current_step_position: 1,
          added_by_user_id: rep.id,
        },
      ],
    });
  }
  const env = { ...rig.env, APOLLO_API_URL: fake.apiUrl };

  it('is killed while writing, and the restarted server writes the rest: each contact once, but the batch under way', async () => {
    const first = await startServer(env, { timeoutMs: 300_000 });
    rig.running.push(first);
    const api = new Caller();
    api.base = first.url;
    await registerOwner(api, 'crash@ad-fields.example');
    await api.json(
      'POST',
      `/v1/integration/sequence/apolloio/client/${api.clientId}/connect`,
      { api_key: fake.masterKey },
      201,
    );
    const [cadence] = await poll(async () => {
      const list = await api.json<{ id: number; last_synced_at: string | null; is_syncing: boolean }[]>(
        'GET',
        '/sc/cadence',
      );
      return list.length && list.every((c) => c.last_synced_at && !c.is_syncing) ? list : null;
    }, 120_000);
    await api.json('PUT', `/sc/cadence/${cadence!.id}`, { is_super: true });
    const { items } = await api.json<{ items: Listed[] }>('GET', `/v1/rest/client/${api.clientId}/ad_fields`);
    const integrationId = items[0]!.integration_id;

    // The eleventh bulk update waits unanswered: ten batches are written and stored.
    fake.holdAfter(STORED + 1, '/contacts/bulk_update');
    await api.json('PUT', `/v1/rest/client/${api.clientId}/ad_fields/${integrationId}`, {
      image_field: image.id,
      click_field: click.id,
      enabled: true,
    });
    await poll(async () => (fake.held() > 0 ? true : null), 120_000);
    await stopServer(first, 'SIGKILL');
    expect(first.child.signalCode).toBe('SIGKILL');
    fake.release();

    const stored = await withDatabase(env, async (q) =>
      Number((await q<{ n: string }>('select count(*) as n from ad_field_values'))[0]!.n),
    );
    expect(stored).toBe(STORED * BATCH);

    const second = await startServer(env, { timeoutMs: 300_000 });
    rig.running.push(second);
    api.base = second.url;
    const done = await poll(async () => {
      const list = await api.json<{ items: Listed[] }>('GET', `/v1/rest/client/${api.clientId}/ad_fields`);
      const row = list.items[0]!;
      return row.status === 'ready' && row.targets_written === CONTACTS ? row : null;
    }, 180_000);
    expect(done.targets_pending).toBe(0);
    await stopServer(second, 'SIGTERM');

    // Every contact holds its own target's URLs.
    const tokens = await withDatabase(env, (q) =>
      q<{ external_id: string; token: string }>(
        'select p.external_id, t.token from targets t join prospects p on p.id = t.prospect_id',
      ),
    );
    expect(tokens).toHaveLength(CONTACTS);
    // Both servers have the same public URL (PORT=0 as configured): one origin in every value.
    const publicUrl = new URL(fake.contacts.get(tokens[0]!.external_id)!.typed_custom_fields[image.id]!)
      .origin;
    for (const { external_id, token } of tokens) {
      const held = fake.contacts.get(external_id)!.typed_custom_fields;
      const want = adUrls(publicUrl, token);
      expect({ image: held[image.id], click: held[click.id] }).toEqual(want);
    }
    // Each contact was sent once, but those of the batch under way at the kill: at most twice.
    const sent = new Map<string, number>();
    const bodies = fake.requests.filter((r) => r.path === '/contacts/bulk_update').map((r) => r.body);
    for (const body of bodies) {
      for (const { id } of (body as { contact_attributes: { id: string }[] }).contact_attributes) {
        sent.set(id, (sent.get(id) ?? 0) + 1);
      }
    }
    const twice = [...sent.values()].filter((n) => n === 2).length;
    expect(sent.size).toBe(CONTACTS);
    expect([...sent.values()].every((n) => n <= 2)).toBe(true);
    expect(twice).toBeLessThanOrEqual(BATCH);
    expect(bodies.length).toBeLessThanOrEqual(CONTACTS / BATCH + 1);
  }, 900_000);
});
