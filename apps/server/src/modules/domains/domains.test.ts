import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { MAX_CLIENT_DOMAINS } from '@rally/shared/schemas/domains';
import { clientDomains, clients } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';

/** GET/POST/DELETE /v1/rest/client/{id}/domains and …/{domainId}/verify (issue 37, decision 0013). */

const PUBLIC_HOST = 'rally.example.net';
const dns = await startFakeDns({});
afterAll(() => dns.close());
const app = await createTestApp({ env: { PUBLIC_URL: `https://${PUBLIC_HOST}`, DNS_SERVERS: dns.server } });
const mine = await makeClient(app, 'Mine');
const other = await makeClient(app, 'Other');
const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
const { browser: manager } = await signedIn(app, { [mine]: 'green_manager' });
const { browser: viewer } = await signedIn(app, { [mine]: 'grey_viewer' });
const { browser: stranger } = await signedIn(app, { [other]: 'purple_owner' });
const base = `/v1/rest/client/${mine}/domains`;
const tokenOf = async (clientId: string) =>
  (await app.db.select().from(clients).where(eq(clients.id, clientId)))[0]!.domainToken;
const fieldsOf = (body: { errors?: { field: string }[] }) => body.errors?.map((e) => e.field) ?? [];

describe('client domains', () => {
  it('each client has its own token; an empty list says which TXT value to publish', async () => {
    const [a, b] = [await tokenOf(mine), await tokenOf(other)];
    expect(a).toMatch(/^[0-9a-f]{32}$/);
    expect(b).not.toBe(a);
    const res = await viewer.get(base);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ txt_value: `rally-verification=${a}`, domains: [] });
  });

  it('adds a lower-cased domain, unverified, with the record to create', async () => {
    const res = await owner.post(base, { domain: ' Acme.Example. ' });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json()).toMatchObject({
      domain: 'acme.example',
      verified: false,
      verified_at: null,
      last_checked_at: null,
      last_check_message: null,
      dns_record: {
        type: 'TXT',
        name: '_rally.acme.example',
        value: `rally-verification=${await tokenOf(mine)}`,
      },
    });
    const again = await owner.post(base, { domain: 'acme.example' });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toEqual({
      message: "body.domain: acme.example is already one of this client's domains",
      errors: [{ field: 'body.domain', message: "acme.example is already one of this client's domains" }],
    });
    // Another client may add (and verify, with its own token) the same domain.
    expect(
      (await stranger.post(`/v1/rest/client/${other}/domains`, { domain: 'acme.example' })).statusCode,
    ).toBe(201);
  });

  it('verifies on the client’s own TXT value only; a record split in strings counts; re-checks can take it away', async () => {
    const list = (await owner.get(base)).json();
    const id = list.domains[0].id;
    const verify = () => owner.post(`${base}/${id}/verify`, {});

    const none = (await verify()).json();
    expect(none).toMatchObject({ verified: false });
    expect(none.last_check_message).toBe(
      'No TXT record at _rally.acme.example yet. Add it at your DNS provider; changes can take up to an hour to show.',
    );
    expect(Date.parse(none.last_checked_at)).toBeGreaterThan(Date.now() - 60_000);

    // The other client's value is there, not ours.
    dns.records['_rally.acme.example'] = { txt: [`rally-verification=${await tokenOf(other)}`] };
    const wrong = (await verify()).json();
    expect(wrong).toMatchObject({ verified: false });
    expect(wrong.last_check_message).toBe(
      `_rally.acme.example has TXT records, but none is rally-verification=${await tokenOf(mine)}. Add that one (the others can stay).`,
    );

    const value = `rally-verification=${await tokenOf(mine)}`;
    dns.records['_rally.acme.example'] = { txt: ['v=spf1 -all', [value.slice(0, 10), value.slice(10)]] };
    const ok = (await verify()).json();
    expect(ok).toMatchObject({
      verified: true,
      last_check_message: '_rally.acme.example has the record: acme.example is verified.',
    });
    expect(Date.parse(ok.verified_at)).toBeGreaterThan(Date.now() - 60_000);
    // Verified again later: the first verification time stays.
    expect((await verify()).json().verified_at).toBe(ok.verified_at);
    expect((await stranger.get(`/v1/rest/client/${other}/domains`)).json().domains[0].verified).toBe(false);

    delete dns.records['_rally.acme.example'];
    expect((await verify()).json()).toMatchObject({ verified: false, verified_at: null });
  });

  it('422 naming body.domain for a bad host name or our own host', async () => {
    for (const domain of [
      'https://acme.example',
      'localhost',
      'acme.example/x',
      '1.2.3.4',
      'a_b.example',
      '',
      42,
    ]) {
      const res = await owner.post(base, { domain });
      expect(res.statusCode, String(domain)).toBe(422);
      expect(fieldsOf(res.json()), String(domain)).toEqual(['body.domain']);
    }
    for (const domain of [PUBLIC_HOST, `eu.${PUBLIC_HOST}`, 'example.net']) {
      const res = await owner.post(base, { domain });
      expect(res.statusCode, domain).toBe(422);
      expect(res.json().errors).toEqual([
        { field: 'body.domain', message: `must be a domain of yours, not ${PUBLIC_HOST}` },
      ]);
    }
    const badId = await owner.post(`${base}/not-a-uuid/verify`, {});
    expect(badId.statusCode).toBe(422);
    expect(fieldsOf(badId.json())).toEqual(['params.id']);
  });

  it(`holds at most ${MAX_CLIENT_DOMAINS} domains, also when many are added at once`, async () => {
    const client = await makeClient(app, 'Many');
    const { browser } = await signedIn(app, { [client]: 'blue_admin' });
    const path = `/v1/rest/client/${client}/domains`;
    await app.db.insert(clientDomains).values(
      Array.from({ length: MAX_CLIENT_DOMAINS - 2 }, (_, i) => ({
        clientId: client,
        domain: `d${i}.example`,
      })),
    );
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => browser.post(path, { domain: `new${i}.example` })),
    );
    expect(results.filter((r) => r.statusCode === 201)).toHaveLength(2);
    const refused = results.filter((r) => r.statusCode === 409);
    expect(refused).toHaveLength(4);
    expect(refused[0]!.json().errors).toEqual([
      { field: 'body.domain', message: `a client can have at most ${MAX_CLIENT_DOMAINS} domains` },
    ]);
    expect((await browser.get(path)).json().domains).toHaveLength(MAX_CLIENT_DOMAINS);
  });

  it('DELETE removes a domain; an unknown or another client’s domain is a 404', async () => {
    const added = (await owner.post(base, { domain: 'gone.example' })).json();
    const theirs = (
      await stranger.post(`/v1/rest/client/${other}/domains`, { domain: 'theirs.example' })
    ).json();
    expect((await owner.delete(`${base}/${theirs.id}`)).statusCode).toBe(404);
    expect((await owner.post(`${base}/${theirs.id}/verify`, {})).statusCode).toBe(404);
    expect((await owner.delete(`${base}/${added.id}`)).statusCode).toBe(204);
    expect((await owner.delete(`${base}/${added.id}`)).json()).toEqual({
      message: 'This client has no such domain.',
    });
    expect((await owner.get(base)).json().domains.map((d: { domain: string }) => d.domain)).not.toContain(
      'gone.example',
    );
  });

  it('settings.write is needed to change or verify; members read; other clients, no session and no CSRF are refused', async () => {
    const id = (await owner.get(base)).json().domains[0].id;
    for (const res of [
      await manager.post(base, { domain: 'x.example' }),
      await manager.post(`${base}/${id}/verify`, {}),
      await manager.delete(`${base}/${id}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe(
        'Access Denied: your role does not have the settings.write permission.',
      );
    }
    expect((await manager.get(base)).statusCode).toBe(200);
    expect((await stranger.get(base, { clientId: mine })).statusCode).toBe(403);
    expect((await stranger.post(base, { domain: 'steal.example' }, { clientId: mine })).statusCode).toBe(403);
    const anonymous = new Browser(app);
    expect((await anonymous.get(base, { clientId: mine })).statusCode).toBe(401);
    expect((await anonymous.post(base, { domain: 'x.example' }, { clientId: mine })).statusCode).toBe(401);
    const noCsrf = await owner.post(base, { domain: 'x.example' }, { csrf: false });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().message).toMatch(/x-xsrf-token/);
  });
});
