import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  billingAccounts,
  cadences,
  cohorts,
  integrations,
  invoices,
  journeyStages,
  journeys,
  salesReps,
} from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeCadence, makeContent, makeRep, showing } from '../../../test/engagement.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

/** SPEC.md §7 "GET /rest/client/{id}/required_attentions" (issue 17): what needs a person now. */
describe('required attentions (GET /v1/rest/client/{id}/required_attentions)', async () => {
  const app = await createTestApp();

  /** A client with one of each problem, and near misses that are not problems. */
  async function scene(name: string) {
    const clientId = await makeClient(app, name);
    const ad = await makeContent(app, clientId, { title: `${name} ad` });
    // The file import (made by the helpers) is active; Salesforce lost its access.
    await makeRep(app, clientId, { firstName: 'Alex' }); // with no photo, selected
    const [sf] = await app.db
      .insert(integrations)
      .values({
        clientId,
        source: 'salesforce',
        isActive: false,
        lastError: 'Salesforce revoked access (invalid_grant)',
      })
      .returning();
    const withPhoto = await makeRep(app, clientId, { firstName: 'Pia' });
    await app.db
      .update(salesReps)
      .set({ photoUrl: 'https://img.example/pia.png' })
      .where(eq(salesReps.id, withPhoto));
    await makeRep(app, clientId, { firstName: 'Nell', selected: false }); // no ads for her prospects
    const gap = await makeCadence(app, clientId, {
      name: `${name} outbound`,
      days: { 1: showing(ad), 2: [], 3: showing(ad), 4: [] },
    });
    await makeCadence(app, clientId, { name: `${name} full`, days: { 1: showing(ad) } });
    await makeCadence(app, clientId, { name: `${name} ads off`, isSuper: false, days: { 1: [] } });
    await makeCadence(app, clientId, { name: `${name} paused`, status: 'paused', days: { 1: [] } });
    await app.db.insert(billingAccounts).values({
      clientId,
      cardBrand: 'visa',
      cardLast4: '0341',
      cardExpMonth: 1,
      cardExpYear: 2020,
    });
    const [inv] = await app.db
      .insert(invoices)
      .values({
        clientId,
        number: `${name.toUpperCase()}-0001`,
        status: 'failed',
        amountCents: 20_000,
        period: '2026-10',
        reason: 'threshold',
        idempotencyKey: randomUUID(),
        failureReason: 'Your card was declined.',
      })
      .returning();
    await app.db.insert(invoices).values({
      clientId,
      number: `${name.toUpperCase()}-0002`,
      status: 'paid',
      amountCents: 500,
      period: '2026-09',
      reason: 'month_end',
      idempotencyKey: randomUUID(),
    });
    // Journeys: one with a stage without ads, one without stages, one complete, one of a paused cohort.
    async function journey(title: string, stages: string[][], status: 'active' | 'paused' = 'active') {
      const cadenceId = await makeCadence(app, clientId, { name: `${title} cadence` });
      await app.db.update(cadences).set({ kind: 'cohort' }).where(eq(cadences.id, cadenceId));
      const [co] = await app.db
        .insert(cohorts)
        .values({ clientId, name: `${title} cohort`, sourceKind: 'filter', cadenceId, status })
        .returning();
      const [j] = await app.db
        .insert(journeys)
        .values({ clientId, cohortId: co!.id, name: title })
        .returning();
      for (const [n, contentIds] of stages.entries())
        await app.db
          .insert(journeyStages)
          .values({ clientId, journeyId: j!.id, position: n + 1, name: `Stage ${n + 1}`, contentIds });
      return { journeyId: j!.id, cohortId: co!.id };
    }
    const halfDone = await journey(`${name} expansion`, [[ad], [], [ad]]);
    const empty = await journey(`${name} launch`, []);
    await journey(`${name} complete`, [[ad], [ad]]);
    await journey(`${name} paused`, [[]], 'paused');
    return { clientId, sf: sf!.id, gap, invoice: inv!.id, halfDone, empty };
  }

  const s = await scene('Acme');
  const foreign = await scene('Foreign');
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [s.clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [s.clientId]: 'grey_viewer' });
  const url = `/v1/rest/client/${s.clientId}/required_attentions`;

  it('lists each problem with its reason and the screen that fixes it', async () => {
    const res = await owner.get(url);
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json();
    expect(body.items).toEqual([
      {
        id: `integration_inactive:${s.sf}`,
        kind: 'integration_inactive',
        message:
          'Salesforce is inactive: Salesforce revoked access (invalid_grant). Nothing syncs from it until it is reconnected.',
        link: { path: '/settings/connections', label: 'Reconnect Salesforce' },
      },
      {
        id: `card_failing:invoice:${s.invoice}`,
        kind: 'card_failing',
        message:
          'The charge of invoice ACME-0001 ($200.00) failed: Your card was declined. Update the card or pay it now.',
        link: { path: '/settings/billing', label: 'Open billing' },
      },
      {
        id: 'card_failing:expired',
        kind: 'card_failing',
        message: 'The card on file (visa ending 0341) expired in 01/2020: the next charge will fail.',
        link: { path: '/settings/billing', label: 'Update the card' },
      },
      {
        id: `cadence_day_without_content:${s.gap}`,
        kind: 'cadence_day_without_content',
        message: 'Acme outbound has ads on, but days 2 and 4 have no content: its prospects see no ad then.',
        link: {
          path: expect.stringMatching(new RegExp(`^/cadence/${s.gap}\\?integration_id=\\d+$`)),
          label: 'Add content',
        },
      },
      {
        id: `journey_without_content:${s.halfDone.journeyId}`,
        kind: 'journey_without_content',
        message: 'The journey Acme expansion has a stage without ads (“Stage 2”): accounts there see none.',
        link: { path: `/cohorts/${s.halfDone.cohortId}/journey`, label: 'Open the journey' },
      },
      {
        id: `journey_without_content:${s.empty.journeyId}`,
        kind: 'journey_without_content',
        message: 'The journey Acme launch has no stage yet: its accounts see no ad.',
        link: { path: `/cohorts/${s.empty.cohortId}/journey`, label: 'Open the journey' },
      },
    ]);
    expect(body.total).toBe(6);
    // Reps without a photo are a step of the setup checklist now (issue 42 item 5), not one nag each.
    expect(body.items.map((i: { kind: string }) => i.kind)).not.toContain('rep_without_photo');
  });

  it('billing items only for roles that may read billing; an SDR sees the rest', async () => {
    const res = await sdr.get(url);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().items.map((i: { kind: string }) => i.kind)).toEqual([
      'integration_inactive',
      'cadence_day_without_content',
      'journey_without_content',
      'journey_without_content',
    ]);
  });

  it('a client with nothing wrong has an empty list', async () => {
    const clean = await makeClient(app, 'Clean');
    const { browser } = await signedIn(app, { [clean]: 'purple_owner' });
    const res = await browser.get(`/v1/rest/client/${clean}/required_attentions`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ items: [], total: 0 });
  });

  it("another client's problems never show; its path is refused", async () => {
    const ids = (await owner.get(url)).json().items.map((i: { id: string }) => i.id);
    expect(ids).not.toContain(`integration_inactive:${foreign.sf}`);
    expect(ids).not.toContain(`cadence_day_without_content:${foreign.gap}`);
    expect(ids).not.toContain(`journey_without_content:${foreign.halfDone.journeyId}`);
    expect((await owner.get(`/v1/rest/client/${foreign.clientId}/required_attentions`)).statusCode).toBe(403);
    const { browser: stranger } = await signedIn(app, { [foreign.clientId]: 'purple_owner' });
    expect((await stranger.get(url, { clientId: s.clientId })).statusCode).toBe(403);
  });

  it('bad input is a 422 naming the field; 401 signed out; 403 without reports.read', async () => {
    const bad = await owner.get(url, { clientId: 'not-a-client' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['headers.x-client-id']);
    const anon = new Browser(app);
    anon.clientId = s.clientId;
    expect((await anon.get(url)).statusCode).toBe(401);
    const denied = await viewer.get(url);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toMatch(/reports\.read/);
  });
});
