import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';

/**
 * The retention settings API (issue 44: "Per client settings with safe defaults: raw engagement events
 * older than N months (default 25) …; export files 7 days; delivery logs 30 days; the audit log 1
 * year"). GET and PATCH, each with success, bad input (422 naming the field), a role without
 * settings.write (403) and another client (403).
 */
let app: FastifyInstance;
let acme: string;
let other: string;
let owner: Browser;
let admin: Browser;
let manager: Browser;
let stranger: Browser;
const url = (client = acme) => `/v1/rest/client/${client}/retention`;

beforeAll(async () => {
  app = await createTestApp({ workers: false });
  acme = await makeClient(app, 'Acme');
  other = await makeClient(app, 'Other');
  owner = (await signedIn(app, { [acme]: 'purple_owner' })).browser;
  admin = (await signedIn(app, { [acme]: 'blue_admin' })).browser;
  manager = (await signedIn(app, { [acme]: 'green_manager' })).browser;
  stranger = (await signedIn(app, { [other]: 'purple_owner' })).browser;
}, 60_000);
afterAll(() => app.close());

describe('GET /rest/client/{id}/retention', () => {
  it('answers the safe defaults while none are saved', async () => {
    const res = await owner.get(url());
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      events_months: 25,
      export_files_days: 7,
      delivery_logs_days: 30,
      audit_log_days: 365,
      updated_at: null,
    });
    expect((await admin.get(url())).statusCode).toBe(200);
  });

  it('names a bad client id (422), refuses a manager (403) and another client (403)', async () => {
    const bad = await owner.get('/v1/rest/client/nope/retention', { clientId: 'nope' });
    expect(bad.statusCode).toBeGreaterThanOrEqual(400);
    expect(bad.statusCode).toBeLessThan(500);
    expect((await manager.get(url())).statusCode).toBe(403);
    expect((await stranger.get(url(acme), { clientId: acme })).statusCode).toBe(403);
  });
});

describe('PATCH /rest/client/{id}/retention', () => {
  it('saves only the fields given, keeps the rest and records the change in the audit log', async () => {
    const res = await admin.patch(url(), { events_months: 13, audit_log_days: 730 });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      events_months: 13,
      export_files_days: 7,
      delivery_logs_days: 30,
      audit_log_days: 730,
      updated_at: expect.any(String),
    });
    const again = await owner.patch(url(), { export_files_days: 1 });
    expect(again.json()).toMatchObject({ events_months: 13, export_files_days: 1, audit_log_days: 730 });
    expect((await owner.get(url())).json()).toMatchObject({ events_months: 13, export_files_days: 1 });
    // The other client keeps its defaults.
    expect((await stranger.get(url(other))).json()).toMatchObject({
      events_months: 25,
      export_files_days: 7,
    });
    const log = await owner.get(`/v1/rest/client/${acme}/audit_log?action=settings.changed`);
    expect(log.statusCode, log.body).toBe(200);
    expect(log.json().items[0]).toMatchObject({
      target_kind: 'retention_settings',
      details: { fields: ['export_files_days'] },
    });
  });

  it('names the field out of bounds (422) and changes nothing', async () => {
    for (const [field, value] of [
      ['events_months', 0],
      ['events_months', 121],
      ['events_months', 2.5],
      ['events_months', '25'],
      ['export_files_days', 91],
      ['delivery_logs_days', 0],
      ['audit_log_days', 29],
    ] as const) {
      const res = await owner.patch(url(), { [field]: value });
      expect(res.statusCode, `${field}=${value}`).toBe(422);
      expect(res.json().errors[0].field).toBe(`body.${field}`);
    }
    const unknown = await owner.patch(url(), { events_days: 3 });
    expect(unknown.statusCode).toBe(422);
    expect((await owner.get(url())).json()).toMatchObject({ events_months: 13, export_files_days: 1 });
    const edges = await owner.patch(url(), { events_months: 120, delivery_logs_days: 1 });
    expect(edges.json()).toMatchObject({ events_months: 120, delivery_logs_days: 1 });
  });

  it('is refused without settings.write (403) and for another client (403), changing nothing', async () => {
    expect((await manager.patch(url(), { events_months: 2 })).statusCode).toBe(403);
    expect((await stranger.patch(url(acme), { events_months: 2 }, { clientId: acme })).statusCode).toBe(403);
    expect((await owner.get(url())).json()).toMatchObject({ events_months: 120 });
  });
});
