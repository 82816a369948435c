import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { SetupChecklist } from '@rally/shared/schemas/setup';
import { billingAccounts, integrations, salesReps } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeCadence, makeContent, makeRep, showing } from '../../../test/engagement.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

const summary = (c: SetupChecklist) => Object.fromEntries(c.steps.map((s) => [s.key, s.done]));

/** The setup checklist (issue 42 item 5): GET /v1/rest/client/{id}/setup. */
describe('setup checklist (GET /v1/rest/client/{id}/setup)', async () => {
  const app = await createTestApp();
  const fresh = await makeClient(app, 'Fresh');
  const busy = await makeClient(app, 'Busy');
  const { browser: owner } = await signedIn(app, { [fresh]: 'purple_owner', [busy]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [fresh]: 'yellow_sdr' });
  const url = (c: string) => `/v1/rest/client/${c}/setup`;

  it('a new account: 0 of 6, each step naming what it blocks, in the order a person takes them', async () => {
    const res = await owner.get(url(fresh), { clientId: fresh });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as SetupChecklist;
    expect(body).toMatchObject({ done: 0, total: 6 });
    expect(body.steps.map((s) => [s.key, s.detail, s.link.path])).toEqual([
      [
        'source',
        'No sequence platform connected and no prospects imported: nobody can see an ad yet.',
        '/onboarding',
      ],
      ['ad', 'No ad yet: a cadence with ads on has nothing to show.', '/content'],
      ['ads_on', 'Ads are off on every cadence: no prospect sees an ad.', '/cadence'],
      [
        'card',
        'No card on file: superprospects cannot be billed, so ads stop at the first invoice.',
        '/settings/billing',
      ],
      ['crm', 'No CRM connected: Revenue has no opportunities to tie to your ads.', '/settings/connections'],
      [
        'photo',
        'No sales rep is chosen yet: ads feature the rep of each prospect.',
        '/client-settings/sales-reps',
      ],
    ]);
    expect(body.steps.every((s) => !s.ask_owner)).toBe(true);
  });

  it('counts what is done: prospects, a published ad, ads on, a card, a CRM; a rep without a photo stays open', async () => {
    const ad = await makeContent(app, busy, { status: 'published' });
    await makeCadence(app, busy, { days: { 1: showing(ad) } });
    const rep = await makeRep(app, busy, { firstName: 'Alex' });
    await app.db.insert(billingAccounts).values({ clientId: busy, cardBrand: 'visa', cardLast4: '4242' });
    await app.db.insert(integrations).values({ clientId: busy, source: 'hubspot' });
    let body = (await owner.get(url(busy), { clientId: busy })).json() as SetupChecklist;
    expect(summary(body)).toEqual({
      source: true,
      ad: true,
      ads_on: true,
      card: true,
      crm: true,
      photo: false,
    });
    expect(body.done).toBe(5);
    expect(body.steps.find((s) => s.key === 'photo')?.detail).toBe(
      '1 of 1 sales rep has no photo: their ads show initials instead of a face.',
    );
    await app.db
      .update(salesReps)
      .set({ photoUrl: 'https://img.example/a.png' })
      .where(eq(salesReps.id, rep));
    body = (await owner.get(url(busy), { clientId: busy })).json() as SetupChecklist;
    expect(body.done).toBe(6);
  });

  it('a draft ad is not done, and says to publish it', async () => {
    const draftClient = await makeClient(app, 'Drafty');
    const { browser } = await signedIn(app, { [draftClient]: 'purple_owner' });
    await makeContent(app, draftClient, { status: 'draft' });
    const body = (await browser.get(url(draftClient), { clientId: draftClient })).json() as SetupChecklist;
    const step = body.steps.find((s) => s.key === 'ad')!;
    expect(step).toMatchObject({ done: false, link: { path: '/content', label: 'Publish your ad' } });
  });

  it('an SDR sees it too, told to ask an owner for what their role cannot do', async () => {
    const res = await sdr.get(url(fresh), { clientId: fresh });
    expect(res.statusCode).toBe(200);
    const asks = (res.json() as SetupChecklist).steps.filter((s) => s.ask_owner).map((s) => s.key);
    expect(asks).toEqual(['source', 'card', 'crm', 'photo']);
  });

  it("foreign tenant: another client's checklist is refused; bad input 422 naming the field; 401 signed out", async () => {
    const { browser: stranger } = await signedIn(app, { [busy]: 'purple_owner' });
    expect((await stranger.get(url(fresh), { clientId: fresh })).statusCode).toBe(403);
    const bad = await owner.get(url(fresh), { clientId: 'not-a-client' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors.map((e: { field: string }) => e.field)).toEqual(['headers.x-client-id']);
    const anon = new Browser(app);
    anon.clientId = fresh;
    expect((await anon.get(url(fresh))).statusCode).toBe(401);
  });
});
