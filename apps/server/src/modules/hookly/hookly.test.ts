import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { WebhookDelivery, WebhookEndpointWithSecret } from '@rally/shared/schemas/hookly';
import { webhookEndpoints } from '../../db/schema/index.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  showing,
} from '../../../test/engagement.ts';
import { makeBillingClient, makeSupers } from '../../../test/billing.ts';
import { smallPortal, startFakeHubSpot } from '../../../test/fakes/hubspot.ts';
import { importCsvFile } from '../fileforce/index.ts';
import { startReceiver, verified } from '../../../test/webhook-receiver.ts';
import { sign } from './index.ts';

describe('webhooks never reach private addresses unless ALLOW_PRIVATE_FETCH allows it', async () => {
  const app = await createTestApp({ env: { ALLOW_PRIVATE_FETCH: 'false' } });
  const mine = await makeClient(app, 'Strict');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
  const base = `/v1/hookly/client/${mine}/settings`;

  it('422 naming body.url for loopback, private, link-local, metadata and plain-http URLs, on create and change', async () => {
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://localhost./hooks',
      'https://10.1.2.3/hooks',
      'https://192.168.0.10/hooks',
      'https://172.16.5.4/hooks',
      'https://169.254.169.254/latest/meta-data',
      'https://100.64.0.1/hooks',
      'https://[::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://0x7f000001/hooks',
      'http://93.184.216.34/hooks',
    ]) {
      const res = await owner.post(base, { url, events: ['click'] });
      expect(res.statusCode, url).toBe(422);
      expect(res.json().errors[0].field, url).toBe('body.url');
    }
    expect((await owner.get(base)).json().endpoints).toEqual([]);

    // A stored public endpoint cannot be moved onto a private address either.
    const created = await owner.post(base, { url: 'https://93.184.216.34/hooks', events: ['click'] });
    expect(created.statusCode, created.body).toBe(201);
    const id = created.json().endpoint.id as string;
    const moved = await owner.patch(`${base}/${id}`, { url: 'https://169.254.169.254/' });
    expect(moved.statusCode).toBe(422);
    expect(moved.json().errors[0].field).toBe('body.url');
    expect(moved.json().message).toMatch(/public internet address/);
  });

  it('a delivery whose address is refused fails at once, without retries, saying why', async () => {
    const created = await owner.post(base, { url: 'https://93.184.216.34/other', events: ['invoice'] });
    const id = created.json().endpoint.id as string;
    // As if its DNS now answered a private address: stored directly, the check at delivery refuses it.
    await app.db
      .update(webhookEndpoints)
      .set({ url: 'https://127.0.0.1:9/hooks' })
      .where(eq(webhookEndpoints.id, id));
    await owner.post(`${base}/${id}/test`);
    const [d] = await waitFor(async () => {
      const all = (await owner.get(`${base}/${id}/deliveries`)).json().deliveries as WebhookDelivery[];
      return all[0]?.status === 'failed' ? all : null;
    }, 20_000);
    expect(d).toMatchObject({ status: 'failed', attempts: 1, last_status_code: null });
    expect(d!.last_error).toMatch(/^Not sent: the endpoint's URL must point to a public internet address/);
  });
});

describe('SPEC.md §7 "Webhook settings under /hookly/client/{id}/settings, plus a test export"', async () => {
  const app = await createTestApp({ webhookRetrySchedule: [1, 2, 4, 8] });
  const mine = await makeClient(app, 'Acme');
  const foreign = await makeClient(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [mine]: 'grey_viewer' });
  const { browser: admin } = await signedIn(app, { [mine]: 'blue_admin' });
  const { browser: stranger } = await signedIn(app, { [foreign]: 'purple_owner' });
  const base = (client = mine) => `/v1/hookly/client/${client}/settings`;

  async function create(body: Record<string, unknown>, b: Browser = owner) {
    const res = await b.post(base(), body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as WebhookEndpointWithSecret;
  }

  async function log(endpointId: string): Promise<WebhookDelivery[]> {
    const res = await owner.get(`${base()}/${endpointId}/deliveries`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as { deliveries: WebhookDelivery[] }).deliveries;
  }

  const finished = (endpointId: string, n: number) =>
    waitFor(async () => {
      const all = await log(endpointId);
      return all.length >= n && all.every((d) => d.status === 'succeeded' || d.status === 'failed')
        ? all
        : null;
    }, 30_000);

  describe('GET settings', () => {
    it('lists no endpoints at first, and the events one may choose', async () => {
      const res = await admin.get(base());
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        endpoints: [],
        events: [
          'superprospect',
          'click',
          'landing_page_view',
          'sync_finished',
          'import_finished',
          'invoice',
        ],
      });
    });

    it('401 signed out; 403 for a foreign tenant', async () => {
      expect((await new Browser(app).get(base(), { clientId: mine })).statusCode).toBe(401);
      expect((await owner.get(base())).statusCode).toBe(200);
      expect((await stranger.get(base(), { clientId: mine })).statusCode).toBe(403);
      expect((await stranger.get(base(mine), { clientId: foreign })).statusCode).toBe(403);
    });

    it('403 for members without integration.write: an SDR and a viewer read no URLs (issue 37)', async () => {
      const { endpoint } = await create({ url: 'https://hooks.example.com/private?x=1', events: ['click'] });
      for (const b of [sdr, viewer]) {
        for (const url of [base(), `${base()}/${endpoint.id}/deliveries`]) {
          const res = await b.get(url);
          expect(res.statusCode, url).toBe(403);
          expect(res.json().message).toMatch(/integration\.write/);
          expect(res.body).not.toContain('hooks.example.com');
        }
      }
      expect((await admin.get(`${base()}/${endpoint.id}/deliveries`)).statusCode).toBe(200);
      await owner.delete(`${base()}/${endpoint.id}`);
    });

    it('masks credentials and query-string secrets in every reply that shows a URL; delivers to the URL as typed', async () => {
      const receiver = await startReceiver();
      const typed = `${receiver.url}?token=s3cr3t-tok&sig=s3cr3t-sig&event=rally&api_key=s3cr3t-key`;
      const created = await create({ url: typed, events: ['click'] });
      const masked = `${receiver.url}?token=***&sig=***&event=rally&api_key=***`;
      expect(created.endpoint.url).toBe(masked);
      const listed = await owner.get(base());
      expect(listed.json().endpoints.map((e: { url: string }) => e.url)).toContain(masked);
      const changed = await owner.patch(`${base()}/${created.endpoint.id}`, {
        url: `${typed}&password=s3cr3t-pw`,
      });
      expect(changed.json().url).toBe(`${masked}&password=***`);
      const rotated = await owner.post(`${base()}/${created.endpoint.id}/rotate_secret`);
      expect(rotated.json().endpoint.url).toBe(`${masked}&password=***`);
      // Stored as typed, and delivered there.
      const [row] = await app.db
        .select()
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.id, created.endpoint.id));
      expect(row!.url).toBe(`${typed}&password=s3cr3t-pw`);
      await owner.post(`${base()}/${created.endpoint.id}/test`);
      await finished(created.endpoint.id, 1);
      expect(receiver.received[0]!.url).toBe(
        '/hooks?token=s3cr3t-tok&sig=s3cr3t-sig&event=rally&api_key=s3cr3t-key&password=s3cr3t-pw',
      );
      // A URL with credentials (refused today, but stored before that rule) and an error quoting one.
      await app.db
        .update(webhookEndpoints)
        .set({ url: 'https://user:s3cr3t-pass@hooks.example.com/in?code=s3cr3t-code' })
        .where(eq(webhookEndpoints.id, created.endpoint.id));
      await app.database.execute(`update webhook_deliveries set last_error = $1 where endpoint_id = $2`, [
        'The endpoint could not be reached (https://user:s3cr3t-pass@hooks.example.com/in?code=s3cr3t-code)',
        created.endpoint.id,
      ]);
      for (const url of [base(), `${base()}/${created.endpoint.id}/deliveries`]) {
        const res = await owner.get(url);
        expect(res.statusCode).toBe(200);
        expect(res.body, url).not.toContain('s3cr3t');
        expect(res.body, url).toContain('https://***@hooks.example.com/in?code=***');
      }
      await owner.delete(`${base()}/${created.endpoint.id}`);
    });
  });

  describe('POST settings (create)', () => {
    it('stores the endpoint, shows the whsec_ secret once, keeps it sealed at rest', async () => {
      const { endpoint, secret } = await create({
        url: 'https://hooks.example.com/rally',
        events: ['invoice', 'click'],
        description: 'CRM bridge',
      });
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
      expect(endpoint).toMatchObject({
        url: 'https://hooks.example.com/rally',
        events: ['click', 'invoice'],
        description: 'CRM bridge',
        enabled: true,
        secret_hint: `…${secret.slice(-4)}`,
        last_delivery: null,
      });
      const listed = (await owner.get(base())).json();
      expect(listed.endpoints).toEqual([endpoint]);
      expect(JSON.stringify(listed)).not.toContain(secret.slice(6));
      const [row] = await app.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
      expect(row!.secretEnc).toMatch(/^v1\./);
      expect(row!.secretEnc).not.toContain(secret.slice(6));
      await owner.delete(`${base()}/${endpoint.id}`);
    });

    it('422 naming the field for bad input, nothing stored', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ events: ['click'] }, 'body.url'],
        [{ url: 'not a url', events: ['click'] }, 'body.url'],
        [{ url: 'ftp://files.example.com/x', events: ['click'] }, 'body.url'],
        [{ url: 'https://u:p@hooks.example.com/', events: ['click'] }, 'body.url'],
        [{ url: `https://hooks.example.com/${'x'.repeat(2001)}`, events: ['click'] }, 'body.url'],
        [{ url: 'https://hooks.example.com/' }, 'body.events'],
        [{ url: 'https://hooks.example.com/', events: [] }, 'body.events'],
        [{ url: 'https://hooks.example.com/', events: ['click', 'click'] }, 'body.events'],
        [{ url: 'https://hooks.example.com/', events: ['reboot'] }, 'body.events.0'],
        [{ url: 'https://hooks.example.com/', events: ['click'], enabled: 'yes' }, 'body.enabled'],
        [
          { url: 'https://hooks.example.com/', events: ['click'], description: 'x'.repeat(201) },
          'body.description',
        ],
      ];
      for (const [body, field] of cases) {
        const res = await owner.post(base(), body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().errors[0].field, JSON.stringify(body)).toBe(field);
      }
      expect((await owner.get(base())).json().endpoints).toEqual([]);
    });

    it('401 signed out; 403 for an SDR (no integration.write) and for a foreign tenant', async () => {
      const body = { url: 'https://hooks.example.com/', events: ['click'] };
      expect((await new Browser(app).post(base(), body, { clientId: mine })).statusCode).toBe(401);
      const bySdr = await sdr.post(base(), body);
      expect(bySdr.statusCode).toBe(403);
      expect(bySdr.json().message).toMatch(/integration\.write/);
      expect((await stranger.post(base(), body, { clientId: mine })).statusCode).toBe(403);
      expect((await stranger.post(base(mine), body, { clientId: foreign })).statusCode).toBe(403);
      expect((await owner.get(base())).json().endpoints).toEqual([]);
    });
  });

  describe('PATCH and DELETE settings/{endpointId}, rotate_secret', () => {
    it('changes url, events, description, enabled; 422 naming the field; 404 for another client’s endpoint', async () => {
      const { endpoint } = await create({ url: 'https://a.example.com/', events: ['click'] });
      const url = `${base()}/${endpoint.id}`;
      const res = await owner.patch(url, {
        url: 'https://b.example.com/x',
        events: ['superprospect', 'import_finished'],
        description: 'renamed',
        enabled: false,
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        id: endpoint.id,
        url: 'https://b.example.com/x',
        events: ['superprospect', 'import_finished'],
        description: 'renamed',
        enabled: false,
      });
      for (const [body, field] of [
        [{}, 'body'],
        [{ url: 'gopher://x' }, 'body.url'],
        [{ events: [] }, 'body.events'],
        [{ enabled: 1 }, 'body.enabled'],
      ] as const) {
        const bad = await owner.patch(url, body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(422);
        expect(bad.json().errors[0].field).toBe(field);
      }
      expect((await owner.patch(`${base()}/not-a-uuid`, { enabled: true })).json().errors[0].field).toBe(
        'params.endpointId',
      );
      expect((await owner.patch(`${base()}/${randomUUID()}`, { enabled: true })).statusCode).toBe(404);
      // The same endpoint id under another client is not found there.
      const other = await stranger.patch(
        `${base(foreign)}/${endpoint.id}`,
        { enabled: true },
        { clientId: foreign },
      );
      expect(other.statusCode).toBe(404);
      expect((await sdr.patch(url, { enabled: true })).statusCode).toBe(403);
      expect((await new Browser(app).patch(url, { enabled: true }, { clientId: mine })).statusCode).toBe(401);
      expect((await stranger.patch(url, { enabled: true }, { clientId: mine })).statusCode).toBe(403);
    });

    it('rotates the secret (shown once) and deletes the endpoint with its log', async () => {
      const { endpoint, secret } = await create({ url: 'https://a.example.com/', events: ['click'] });
      const url = `${base()}/${endpoint.id}`;
      expect((await sdr.post(`${url}/rotate_secret`)).statusCode).toBe(403);
      const rotated = await owner.post(`${url}/rotate_secret`);
      expect(rotated.statusCode).toBe(200);
      expect(rotated.json().secret).toMatch(/^whsec_/);
      expect(rotated.json().secret).not.toBe(secret);
      expect(rotated.json().endpoint.secret_hint).toBe(`…${rotated.json().secret.slice(-4)}`);
      expect((await owner.post(`${base()}/${randomUUID()}/rotate_secret`)).statusCode).toBe(404);

      expect((await sdr.delete(url)).statusCode).toBe(403);
      expect((await stranger.delete(url, undefined, { clientId: mine })).statusCode).toBe(403);
      expect((await new Browser(app).delete(url, undefined, { clientId: mine })).statusCode).toBe(401);
      expect((await owner.delete(`${base()}/bad`)).json().errors[0].field).toBe('params.endpointId');
      expect((await owner.delete(url)).statusCode).toBe(204);
      expect((await owner.delete(url)).statusCode).toBe(404);
      expect((await owner.get(`${url}/deliveries`)).statusCode).toBe(404);
    });
  });

  describe('test export and the delivery log', () => {
    it('sends a sample of each chosen event, signed the Standard Webhooks way (checked by the standardwebhooks package)', async () => {
      const receiver = await startReceiver();
      const { endpoint, secret } = await create({
        url: receiver.url,
        events: [
          'superprospect',
          'click',
          'landing_page_view',
          'sync_finished',
          'import_finished',
          'invoice',
        ],
      });
      const res = await owner.post(`${base()}/${endpoint.id}/test`);
      expect(res.statusCode, res.body).toBe(202);
      expect(res.json().deliveries).toHaveLength(6);
      const deliveries = await finished(endpoint.id, 6);
      expect(deliveries.map((d) => d.status)).toEqual(Array(6).fill('succeeded'));
      expect(deliveries.every((d) => d.attempts === 1 && d.is_test && d.last_status_code === 200)).toBe(true);

      expect(receiver.received).toHaveLength(6);
      const types = receiver.received.map((r) => {
        const payload = verified(secret, r);
        expect(r.headers['content-type']).toBe('application/json');
        expect(payload.data).toMatchObject({ test: true, client_id: mine });
        return payload.type;
      });
      expect(types.sort()).toEqual(
        ['click', 'import_finished', 'invoice', 'landing_page_view', 'superprospect', 'sync_finished'].sort(),
      );
      // Each delivery has its own webhook-id; the log shows it.
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(6);
      expect(deliveries.map((d) => d.webhook_id).sort()).toEqual(
        receiver.received.map((r) => String(r.headers['webhook-id'])).sort(),
      );
      // A tampered body or a wrong secret does not verify.
      const first = receiver.received[0]!;
      expect(() =>
        verified(secret, { ...first, body: first.body.replace('"test":true', '"test":false') }),
      ).toThrow();
      expect(() => verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, first)).toThrow();
      // Our own signer agrees with the header.
      expect(first.headers['webhook-signature']).toBe(
        sign(
          secret,
          String(first.headers['webhook-id']),
          Number(first.headers['webhook-timestamp']),
          first.body,
        ),
      );
      // The list shows the newest delivery.
      const listed = (await owner.get(base()))
        .json()
        .endpoints.find((e: { id: string }) => e.id === endpoint.id);
      expect(listed.last_delivery.status).toBe('succeeded');
    });

    it('a receiver that fails twice then succeeds gets the event once; the log shows 3 attempts, succeeded', async () => {
      const seen = new Map<string, number>();
      const receiver = await startReceiver((r) => {
        const id = String(r.headers['webhook-id']);
        const n = (seen.get(id) ?? 0) + 1;
        seen.set(id, n);
        return n <= 2 ? 503 : 204;
      });
      const { endpoint, secret } = await create({ url: receiver.url, events: ['invoice'] });
      expect((await owner.post(`${base()}/${endpoint.id}/test`)).statusCode).toBe(202);
      const midway = await waitFor(async () => {
        const [d] = await log(endpoint.id);
        return d && d.attempts >= 1 && d.status === 'retrying' ? d : null;
      }, 20_000);
      expect(midway.last_status_code).toBe(503);
      expect(midway.last_error).toMatch(/HTTP 503/);
      expect(midway.next_attempt_at).not.toBeNull();
      const [done] = await finished(endpoint.id, 1);
      expect(done).toMatchObject({
        status: 'succeeded',
        attempts: 3,
        last_status_code: 204,
        last_error: null,
      });
      expect(done!.delivered_at).not.toBeNull();
      const accepted = receiver.received.filter((r) => r.answered < 300);
      expect(accepted).toHaveLength(1);
      expect(receiver.received).toHaveLength(3);
      // The same webhook-id on every attempt, each attempt signed afresh and valid.
      expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
      for (const r of receiver.received) expect(verified(secret, r).type).toBe('invoice');
    }, 40_000);

    it('gives up after 5 attempts and logs the last error', async () => {
      const receiver = await startReceiver(() => 500);
      const { endpoint } = await create({ url: receiver.url, events: ['click'] });
      await owner.post(`${base()}/${endpoint.id}/test`);
      const [d] = await waitFor(async () => {
        const all = await log(endpoint.id);
        return all[0]?.status === 'failed' ? all : null;
      }, 60_000);
      expect(d).toMatchObject({ attempts: 5, last_status_code: 500, next_attempt_at: null });
      expect(d!.last_error).toMatch(/HTTP 500: try later/);
      expect(receiver.received).toHaveLength(5);
    }, 70_000);

    it('test: 401, 403 for an SDR and a foreign tenant, 404 unknown; log: 422 on a bad limit, 403 foreign', async () => {
      const { endpoint } = await create({
        url: 'https://hooks.example.com/',
        events: ['click'],
        enabled: false,
      });
      const url = `${base()}/${endpoint.id}`;
      expect((await new Browser(app).post(`${url}/test`, undefined, { clientId: mine })).statusCode).toBe(
        401,
      );
      expect((await sdr.post(`${url}/test`)).statusCode).toBe(403);
      expect((await stranger.post(`${url}/test`, undefined, { clientId: mine })).statusCode).toBe(403);
      expect((await owner.post(`${base()}/${randomUUID()}/test`)).statusCode).toBe(404);
      expect((await sdr.get(`${url}/deliveries`)).statusCode).toBe(403);
      expect((await viewer.get(`${url}/deliveries`)).statusCode).toBe(403);
      const bad = await owner.get(`${url}/deliveries?limit=0`);
      expect(bad.statusCode).toBe(422);
      expect(bad.json().errors[0].field).toBe('querystring.limit');
      expect((await stranger.get(`${url}/deliveries`, { clientId: mine })).statusCode).toBe(403);
      expect((await new Browser(app).get(`${url}/deliveries`, { clientId: mine })).statusCode).toBe(401);
      // A disabled endpoint's test delivery fails at once, saying why.
      await owner.post(`${url}/test`);
      const [d] = await finished(endpoint.id, 1);
      expect(d).toMatchObject({ status: 'failed', attempts: 1, last_error: 'The endpoint is disabled' });
    });
  });

  describe('events from the product', () => {
    it('an ad click sends click and superprospect (the rule fires at the first click), only to subscribed endpoints', async () => {
      const receiver = await startReceiver();
      const { endpoint, secret } = await create({ url: receiver.url, events: ['superprospect', 'click'] });
      const quiet = await startReceiver();
      const { endpoint: other } = await create({ url: quiet.url, events: ['invoice'] });
      const rep = await makeRep(app, mine, { calendarUrl: 'https://cal.example/maya' });
      const contentId = await makeContent(app, mine);
      const cadenceId = await makeCadence(app, mine, { days: { 1: showing(contentId) } });
      const t = await makeTarget(app, mine, cadenceId, { repId: rep });
      const res = await app.inject({ url: `/t/${t.token}/c`, headers: { 'user-agent': BROWSER_UA } });
      expect(res.statusCode).toBeLessThan(400);
      const deliveries = await finished(endpoint.id, 2);
      expect(deliveries.map((d) => d.event_type).sort()).toEqual(['click', 'superprospect']);
      expect(deliveries.every((d) => !d.is_test)).toBe(true);
      const payloads = receiver.received.map((r) => verified(secret, r));
      const superEvent = payloads.find((p) => p.type === 'superprospect')!;
      expect(superEvent.data).toMatchObject({
        client_id: mine,
        target_id: t.id,
        prospect_id: t.prospectId,
        cadence_id: cadenceId,
        reason: 'click',
        clicks: 1,
      });
      expect(await log(other.id)).toEqual([]);
      expect(quiet.received).toEqual([]);
    });

    it('40 superprospects make an invoice, which sends invoice (number, amount, status)', async () => {
      const billed = await makeBillingClient(app.db);
      const { browser: billedOwner } = await signedIn(app, { [billed]: 'purple_owner' });
      const receiver = await startReceiver();
      const created = await billedOwner.post(`/v1/hookly/client/${billed}/settings`, {
        url: receiver.url,
        events: ['invoice'],
      });
      expect(created.statusCode, created.body).toBe(201);
      const { secret } = created.json() as WebhookEndpointWithSecret;
      await makeSupers(app.db, billed, 40, new Date());
      // The billing job may get there first; either way the invoice is made once and announced.
      await app.billing.charging.invoiceClient(billed);
      const [r] = await waitFor(() => (receiver.received.length ? receiver.received : null), 20_000);
      const payload = verified(secret, r!);
      expect(payload.type).toBe('invoice');
      expect(payload.data).toMatchObject({
        client_id: billed,
        number: 'R-00001',
        status: 'open',
        amount_cents: 40 * 500,
        reason: 'threshold',
      });
    });

    it('a landing page view sends landing_page_view; a finished file import sends import_finished', async () => {
      const receiver = await startReceiver();
      const { endpoint, secret } = await create({
        url: receiver.url,
        events: ['landing_page_view', 'import_finished'],
      });
      const rep = await makeRep(app, mine, { calendarUrl: 'https://cal.example/maya' });
      const contentId = await makeContent(app, mine);
      const cadenceId = await makeCadence(app, mine, { days: { 1: showing(contentId) } });
      const t = await makeTarget(app, mine, cadenceId, { repId: rep });
      expect((await app.tracking.recordView(t.token)).status).toBe('recorded');

      const dir = mkdtempSync(path.join(tmpdir(), 'rally-hooks-'));
      const file = path.join(dir, 'people.csv');
      writeFileSync(
        file,
        'Email,First Name,Last Name,Cadence,Day\nada@example.com,Ada,Lovelace,Hooks cadence,1\n',
      );
      const imported = await importCsvFile(app, { clientId: mine, kind: 'targets', filePath: file });
      expect(imported.status).toBe('done');

      const deliveries = await finished(endpoint.id, 2);
      expect(deliveries.map((d) => d.event_type).sort()).toEqual(['import_finished', 'landing_page_view']);
      const payloads = receiver.received.map((r) => verified(secret, r));
      expect(payloads.find((p) => p.type === 'landing_page_view')!.data).toMatchObject({
        client_id: mine,
        target_id: t.id,
        views: 1,
      });
      expect(payloads.find((p) => p.type === 'import_finished')!.data).toMatchObject({
        client_id: mine,
        import_id: imported.id,
        file_name: 'people.csv',
        kind: 'targets',
        status: 'done',
        imported_rows: 1,
        error_rows: 0,
      });
    });
  });
});

describe('sync_finished from a CRM sync', async () => {
  const PUBLIC_URL = 'http://rally.test';
  const fake = await startFakeHubSpot({ seed: smallPortal() });
  afterAll(() => fake.close());
  const app = await createTestApp({
    env: {
      PUBLIC_URL,
      HUBSPOT_CLIENT_ID: fake.clientId,
      HUBSPOT_CLIENT_SECRET: fake.clientSecret,
      HUBSPOT_API_URL: fake.apiUrl,
      HUBSPOT_AUTH_URL: fake.authUrl,
    },
    adapters: { retry: { baseDelayMs: 1, maxDelayMs: 5, sleep: async () => {} } },
  });
  const clientId = await makeClient(app, 'Synced');
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });

  it('a HubSpot sync that finishes sends sync_finished with its integration and status', async () => {
    const receiver = await startReceiver();
    const created = await owner.post(`/v1/hookly/client/${clientId}/settings`, {
      url: receiver.url,
      events: ['sync_finished'],
    });
    expect(created.statusCode, created.body).toBe(201);
    const { secret } = created.json() as WebhookEndpointWithSecret;

    // The OAuth walk a browser makes: our redirect call, the fake's consent, our callback.
    const start = await owner.get(
      `/v1/integration/crm/hubspot/client/${clientId}/redirect?return_to=integration`,
    );
    expect(start.statusCode, start.body).toBe(200);
    const consent = await fetch(new URL(start.json().redirect_url), { redirect: 'manual' });
    const back = new URL(consent.headers.get('location')!);
    expect((await owner.get(`${back.pathname}${back.search}`, { clientId: null })).statusCode).toBe(302);

    const [r] = await waitFor(() => (receiver.received.length ? receiver.received : null), 30_000);
    const payload = verified(secret, r!);
    expect(payload.type).toBe('sync_finished');
    expect(payload.data).toMatchObject({
      client_id: clientId,
      source: 'hubspot',
      status: 'succeeded',
      error: null,
    });
    expect(typeof payload.data.integration_id).toBe('number');
  }, 60_000);
});
