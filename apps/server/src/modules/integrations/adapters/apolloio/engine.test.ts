import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { cadenceDays, cadences, integrations, targets } from '../../../../db/schema/index.ts';
import { createSecretBox } from '../../../../lib/crypto.ts';
import { createTestApp } from '../../../../../test/helpers.ts';
import { makeClient } from '../../../../../test/http.ts';
import { startFakeApollo } from '../../../../../test/fakes/apollo.ts';
import type { FakeApollo } from '../../../../../test/fakes/apollo.ts';
import { apolloMissingSequenceMessage } from './adapter.ts';

/**
 * Issue 40 item 5 through the sync engine: a full pass is recorded on the connection (its cursor),
 * and a sequence whose `GET /emailer_campaigns/{id}` answers 404 while Apollo still lists it keeps
 * its cadence, days and targets, says so on the connection, and is read again by the next sync.
 */
let app: FastifyInstance;
let apollo: FakeApollo;
let clientId: string;
let integrationId: number;

beforeAll(async () => {
  apollo = await startFakeApollo();
  app = await createTestApp({
    env: { APOLLO_API_URL: apollo.apiUrl },
    adapters: { retry: { retries: 0, sleep: async () => {} } },
  });
  clientId = await makeClient(app, 'Apollo gaps');
  const sealed = createSecretBox(app.config.appSecret).encrypt(
    JSON.stringify({ kind: 'api_key', apiKey: apollo.masterKey }),
  );
  const [row] = await app.db
    .insert(integrations)
    .values({ clientId, source: 'apolloio', credentialsEnc: sealed, accountName: 'Apollo' })
    .returning({ id: integrations.id });
  integrationId = row!.id;
});
afterAll(async () => {
  await apollo?.close();
});

const integration = async () =>
  (await app.db.select().from(integrations).where(eq(integrations.id, integrationId)))[0]!;

describe('Apollo through the sync engine (issue 40 item 5)', () => {
  it('a 404 on a listed sequence keeps its cadence, days and targets and says so; the next sync reads it again', async () => {
    const seq = apollo.addSequence({ name: 'Outbound', steps: [{ wait_time: 0 }, { wait_time: 2 }] });
    const people = Array.from({ length: 3 }, (_, i) =>
      apollo.addContact({
        first_name: 'P',
        last_name: `${i}`,
        contact_campaign_statuses: [{ emailer_campaign_id: seq.id, current_step_position: 2 }],
      }),
    );
    await app.integrationSync.run({ integrationId });
    const first = await integration();
    expect(first.lastError).toBeNull();
    expect(first.syncCursor.fullPass).toEqual(expect.any(String));
    const stored = await app.db.select().from(targets).where(eq(targets.clientId, clientId));
    expect(stored).toHaveLength(3);

    apollo.hideSequenceDetail(seq.id);
    apollo.updateContact(people[0]!.id, (c) => {
      c.title = 'Changed';
    });
    await app.integrationSync.run({ integrationId });
    const second = await integration();
    expect(second.lastError).toBe(apolloMissingSequenceMessage('Outbound', seq.id));
    // The cursor stayed: the contact changed is read again next time.
    expect(second.syncCursor.memberships).toBe(first.syncCursor.memberships);
    const [cadence] = await app.db.select().from(cadences).where(eq(cadences.clientId, clientId));
    expect(cadence).toMatchObject({ externalId: seq.id, name: 'Outbound' });
    const days = await app.db.select().from(cadenceDays).where(eq(cadenceDays.cadenceId, cadence!.id));
    expect(days.map((d) => d.dayNumber).sort()).toEqual([1, 3]);
    const kept = await app.db.select().from(targets).where(eq(targets.clientId, clientId));
    expect(kept.map((t) => [t.externalId, t.dayNumber, t.isActive])).toEqual(
      stored.map((t) => [t.externalId, t.dayNumber, t.isActive]),
    );

    // Apollo answers again: the warning goes and the cursor moves on.
    apollo.hideSequenceDetail(seq.id, false);
    await app.integrationSync.run({ integrationId });
    const third = await integration();
    expect(third.lastError).toBeNull();
    expect(third.syncCursor.memberships! > first.syncCursor.memberships!).toBe(true);
    const after = await app.db.select().from(targets).where(eq(targets.clientId, clientId));
    expect(after).toHaveLength(3);
  });
});
