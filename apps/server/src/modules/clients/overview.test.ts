import { beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import type { ClientOverviewReply } from '@rally/shared/schemas/client-overview';
import {
  billingAccounts,
  cadences,
  integrations,
  invoiceLines,
  invoices,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

/**
 * `GET /v1/rest/client/overview` (issue 42 item 13): the agency view of the clients a user belongs
 * to, its numbers equal to those of each client's own screens.
 */
let app: FastifyInstance;
let busy: string;
let quiet: string;
let foreign: string;
let owner: Browser;

const DAY = 86_400_000;

/** A client with an active file import, a cadence, and `supers` superprospects of `daysAgo`. */
async function world(clientId: string, supers: number, daysAgo: number, billed: number) {
  const [integration] = await app.db
    .insert(integrations)
    .values({ clientId, source: 'fileforce', isActive: true })
    .returning();
  const ref = { clientId, integrationId: integration!.id };
  const [cadence] = await app.db
    .insert(cadences)
    .values({ ...ref, externalId: 'c', name: 'Q3' })
    .returning();
  const [invoice] = await app.db
    .insert(invoices)
    .values({
      clientId,
      number: `INV-${clientId.slice(0, 6)}`,
      amountCents: billed * 500,
      period: '2026-11',
      reason: 'threshold',
      idempotencyKey: `k-${clientId}`,
    })
    .returning();
  for (let i = 0; i < supers; i++) {
    const [p] = await app.db
      .insert(prospects)
      .values({ ...ref, externalId: `p${i}`, firstName: `P${i}`, email: `p${i}@x.test` })
      .returning();
    const superDate = new Date(Date.now() - daysAgo * DAY);
    const [t] = await app.db
      .insert(targets)
      .values({ clientId, cadenceId: cadence!.id, prospectId: p!.id, impressions: 20, superDate })
      .returning();
    if (i < billed)
      await app.db.insert(invoiceLines).values({
        invoiceId: invoice!.id,
        clientId,
        targetId: t!.id,
        cadenceId: cadence!.id,
        superDate,
        amountCents: 500,
      });
  }
}

beforeAll(async () => {
  app = await createTestApp();
  busy = await makeClient(app, 'Busy Co');
  quiet = await makeClient(app, 'Quiet Co');
  foreign = await makeClient(app, 'Foreign Co');
  await world(busy, 3, 2, 2);
  await world(foreign, 5, 2, 5);
  // Quiet: its only integration is off, so nothing syncs (at risk).
  await app.db.insert(integrations).values({ clientId: quiet, source: 'salesloft', isActive: false });
  await app.db
    .insert(billingAccounts)
    .values({ clientId: busy, cardLast4: '4242', cardBrand: 'visa', cardExpMonth: 12, cardExpYear: 2099 });
  owner = (await signedIn(app, { [busy]: 'purple_owner', [quiet]: 'purple_owner' })).browser;
});

describe('GET /v1/rest/client/overview', () => {
  it("lists each of the user's clients with the numbers of its own screens, health and what to do first", async () => {
    const res = await owner.get('/v1/rest/client/overview?days=30');
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<ClientOverviewReply>();
    expect(body.days).toBe(30);
    expect(body.clients.map((c) => c.name)).toEqual(['Busy Co', 'Quiet Co']);
    const [b, q] = body.clients;
    // The same numbers as the client's Revenue summary over the same days.
    const now = Math.floor(Date.now() / 1000);
    const summary = (
      await owner.get(`/v1/report/client/${busy}/summary?from=${now - 30 * 86_400}&to=${now}`, {
        clientId: busy,
      })
    ).json<{ new_superprospects: number; pipeline_generated_cents: number }>();
    expect(b).toMatchObject({
      id: busy,
      role: 'purple_owner',
      superprospects: 3,
      spend_cents: 1000,
      pipeline_cents: summary.pipeline_generated_cents,
    });
    expect(summary.new_superprospects).toBe(3);
    expect(b!.health).toBe('needs_attention');
    expect(b!.attention).toMatchObject({ path: expect.stringMatching(/^\//) });
    expect(q).toMatchObject({ id: quiet, superprospects: 0, spend_cents: 0, health: 'at_risk' });
    expect(q!.attention?.message).toMatch(/Salesloft is inactive/);
    expect(q!.attention_count).toBeGreaterThan(0);
  });

  it('a shorter window counts only its own days', async () => {
    const body = (await owner.get('/v1/rest/client/overview?days=1')).json<ClientOverviewReply>();
    expect(body.clients.find((c) => c.id === busy)).toMatchObject({ superprospects: 0, spend_cents: 0 });
  });

  it('422 naming the field for a bad number of days; 401 signed out', async () => {
    for (const days of ['0', '366', 'abc', '1.5']) {
      const res = await owner.get(`/v1/rest/client/overview?days=${days}`);
      expect(res.statusCode, days).toBe(422);
      expect(res.json().errors[0].field).toBe('querystring.days');
    }
    expect((await new Browser(app).get('/v1/rest/client/overview')).statusCode).toBe(401);
  });

  it('a number the role may not see in a client is null there: an SDR sees no spend, a viewer no numbers', async () => {
    const { browser } = await signedIn(app, { [busy]: 'yellow_sdr', [quiet]: 'grey_viewer' });
    const body = (await browser.get('/v1/rest/client/overview')).json<ClientOverviewReply>();
    expect(body.days).toBe(30);
    const [b, q] = body.clients;
    expect(b).toMatchObject({ role: 'yellow_sdr', superprospects: 3, spend_cents: null });
    expect(q).toMatchObject({
      role: 'grey_viewer',
      superprospects: null,
      spend_cents: null,
      pipeline_cents: null,
    });
  });

  it('never lists a client the user does not belong to, whatever client the request names', async () => {
    const body = (
      await owner.get('/v1/rest/client/overview', { clientId: foreign })
    ).json<ClientOverviewReply>();
    expect(body.clients.map((c) => c.id)).not.toContain(foreign);
    const { browser: theirs } = await signedIn(app, { [foreign]: 'purple_owner' });
    const them = (await theirs.get('/v1/rest/client/overview')).json<ClientOverviewReply>();
    expect(them.clients.map((c) => [c.id, c.superprospects])).toEqual([[foreign, 5]]);
  });
});

describe('POST /v1/rest/client with parent_id (issue 42 item 13: the parent is explicit)', () => {
  it('creates at the top level with null, under a named client, or under the current one when left out', async () => {
    const top = await owner.post('/v1/rest/client', { name: 'Top Co', parent_id: null }, { clientId: busy });
    expect(top.statusCode, top.body).toBe(201);
    expect(top.json()).toMatchObject({ parent_id: null });
    const under = await owner.post(
      '/v1/rest/client',
      { name: 'Under Quiet', parent_id: quiet },
      { clientId: busy },
    );
    expect(under.json()).toMatchObject({ parent_id: quiet });
    const current = await owner.post('/v1/rest/client', { name: 'Under Busy' }, { clientId: busy });
    expect(current.json()).toMatchObject({ parent_id: busy });
  });

  it('422 naming body.parent_id for a bad id; 403 under a client where the role may not create clients or a foreign one', async () => {
    const bad = await owner.post('/v1/rest/client', { name: 'X', parent_id: 'nope' }, { clientId: busy });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.parent_id');
    const alien = await owner.post('/v1/rest/client', { name: 'X', parent_id: foreign }, { clientId: busy });
    expect(alien.statusCode).toBe(403);
    const { browser } = await signedIn(app, { [busy]: 'purple_owner', [quiet]: 'green_manager' });
    const managed = await browser.post(
      '/v1/rest/client',
      { name: 'X', parent_id: quiet },
      { clientId: busy },
    );
    expect(managed.statusCode).toBe(403);
  });
});
