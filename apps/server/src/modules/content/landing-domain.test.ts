import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { uuidToBase58 } from '@rally/shared';
import { clientSettings, domainReservations, emailOutbox } from '../../db/schema/index.ts';
import { createResolver } from '../../lib/dns.ts';
import { recheckLandingDomains } from '../domains/index.ts';
import { BROWSER_UA } from '../../../test/engagement.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';
import { createTestApp } from '../../../test/helpers.ts';
import type { Browser } from '../../../test/http.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

/**
 * The landing page domain (issue 8) and its takeover (issue 37.6): verified only with the client's
 * TXT token beside the CNAME, looked at again by the re-check, and reserved to its client for
 * LANDING_DOMAIN_HOLD_DAYS after it lets it go.
 */

const PUBLIC_HOST = 'app.rally.example';
const dns = await startFakeDns({});
afterAll(() => dns.close());

const app = await createTestApp({
  env: { PUBLIC_URL: `https://${PUBLIC_HOST}`, DNS_SERVERS: dns.server, LANDING_DOMAIN_HOLD_DAYS: '30' },
});
const mine = await makeClient(app, 'Mine');
const other = await makeClient(app, 'Other');
const { browser: owner, user: ownerUser } = await signedIn(app, { [mine]: 'purple_owner' });
const { browser: manager } = await signedIn(app, { [mine]: 'green_manager' });
const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
const { browser: stranger } = await signedIn(app, { [other]: 'purple_owner' });
const mineDomain = `/sc/client/${mine}/landing_domain`;
const otherDomain = `/sc/client/${other}/landing_domain`;
const fieldsOf = (body: { errors?: { field: string }[] }) => (body.errors ?? []).map((e) => e.field);

/** The client's TXT value, as its settings show it. */
async function txtOf(browser: Browser, path: string, domain: string): Promise<string> {
  const res = await browser.put(path, { domain });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().txt_record.value as string;
}

/** Publishes the records a client needs: the CNAME to us and its TXT token (or several clients'). */
function publish(domain: string, txt: string[]) {
  dns.records[domain] = { cname: PUBLIC_HOST };
  dns.records[`_rally.${domain}`] = { txt };
}

/** A landing page of the client, and what its /{base58} answers with this Host. */
async function pageOf(browser: Browser, clientId: string) {
  const res = await browser.post(`/v1/rest/client/${clientId}/landing_page`, { name: `Page of ${clientId}` });
  expect(res.statusCode).toBe(201);
  return `/${uuidToBase58(res.json().id)}`;
}
const served = async (host: string, path: string) =>
  (await app.inject({ url: path, headers: { host, 'user-agent': BROWSER_UA } })).statusCode;

const recheck = () =>
  recheckLandingDomains(
    {
      db: app.db,
      resolver: createResolver([dns.server]),
      outbox: app.outbox,
      publicUrl: app.config.publicUrl,
      log: app.log,
    },
    0,
  );

describe('landing domain: GET/PUT/DELETE /sc/client/{id}/landing_domain and its check', () => {
  it('sets a lower-cased domain, with the CNAME and the TXT record to create; unverified until checked', async () => {
    expect((await owner.get(mineDomain)).json()).toEqual({
      domain: null,
      dns_record: null,
      txt_record: null,
      verified: false,
      verified_at: null,
    });
    const res = await owner.put(mineDomain, { domain: ' Go.Mine.Example ' });
    expect(res.statusCode, res.body).toBe(200);
    const [row] = await app.db.select().from(clientSettings).where(eq(clientSettings.clientId, mine));
    expect(row?.landingPageDomain).toBe('go.mine.example');
    expect(res.json()).toEqual({
      domain: 'go.mine.example',
      dns_record: { type: 'CNAME', name: 'go.mine.example', value: PUBLIC_HOST },
      txt_record: {
        type: 'TXT',
        name: '_rally.go.mine.example',
        value: expect.stringMatching(/^rally-verification=[0-9a-f]{32}$/),
      },
      verified: false,
      verified_at: null,
    });
    expect((await sdr.get('/sc/settings')).json().landing_page_domain).toBe('go.mine.example');
  });

  it('the check needs both records: no record, the CNAME alone, another client’s token, then its own', async () => {
    const txt = await txtOf(owner, mineDomain, 'go.mine.example');
    const check = async () => (await owner.post(`${mineDomain}/check`)).json();
    const none = await check();
    expect(none).toMatchObject({ verified: false, resolved: [], verified_at: null });
    expect(none.message).toBe(
      `Add a TXT record at _rally.go.mine.example with the value ${txt}. go.mine.example has no DNS record yet. Create a CNAME record from go.mine.example to ${PUBLIC_HOST}. DNS changes can take up to an hour to show.`,
    );
    // Pointing at us is what anyone can arrange for a dangling name: not enough (before: verified).
    dns.records['go.mine.example'] = { cname: PUBLIC_HOST };
    expect(await check()).toMatchObject({ verified: false, resolved: [PUBLIC_HOST] });
    const theirs = await txtOf(stranger, otherDomain, 'elsewhere.other.example');
    dns.records['_rally.go.mine.example'] = { txt: [theirs] };
    expect((await check()).verified).toBe(false);
    dns.records['_rally.go.mine.example'] = { txt: ['v=spf1 -all', theirs, txt] };
    const ok = await check();
    expect(ok).toMatchObject({
      verified: true,
      resolved: [PUBLIC_HOST],
      message: `go.mine.example points at ${PUBLIC_HOST} and has the TXT record. Landing pages are served there.`,
    });
    expect((await sdr.get(mineDomain)).json()).toMatchObject({ verified: true, verified_at: ok.verified_at });
    expect((await owner.put(mineDomain, { domain: 'GO.MINE.EXAMPLE' })).json().verified).toBe(true);
  });

  it('an apex domain with our addresses and the TXT record is verified too; DNS not answering is a 503', async () => {
    dns.records[PUBLIC_HOST] = { a: ['203.0.113.7'] };
    dns.records['mine.example'] = { a: ['203.0.113.7'] };
    const txt = await txtOf(owner, mineDomain, 'mine.example');
    dns.records['_rally.mine.example'] = { txt: [txt] };
    expect((await owner.post(`${mineDomain}/check`)).json()).toMatchObject({
      verified: true,
      resolved: ['203.0.113.7'],
    });
    dns.records['_rally.mine.example'] = { servfail: true };
    const down = await owner.post(`${mineDomain}/check`);
    expect(down.statusCode).toBe(503);
    expect((await owner.get(mineDomain)).json().verified).toBe(true);
  });

  it('a released domain stays reserved to its client; another client gets a 409 naming body.domain (before: 200, and its page served)', async () => {
    const txt = await txtOf(owner, mineDomain, 'go.victim.example');
    publish('go.victim.example', [txt]);
    expect((await owner.post(`${mineDomain}/check`)).json().verified).toBe(true);
    const mineRemoved = await owner.delete(mineDomain);
    expect(mineRemoved.json()).toMatchObject({ domain: null, verified: false });

    const claim = await stranger.put(otherDomain, { domain: 'go.victim.example' });
    expect(claim.statusCode).toBe(409);
    expect(fieldsOf(claim.json())).toEqual(['body.domain']);
    expect(claim.json().errors[0].message).toMatch(
      /^go\.victim\.example was the landing page domain of another client and stays reserved to it until \d{4}-\d{2}-\d{2}$/,
    );
    const [held] = await app.db
      .select()
      .from(domainReservations)
      .where(eq(domainReservations.domain, 'go.victim.example'));
    expect(held?.clientId).toBe(mine);
    expect(held!.reservedUntil.getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    // Its own client takes it back at once.
    expect((await owner.put(mineDomain, { domain: 'go.victim.example' })).statusCode).toBe(200);
    expect((await owner.post(`${mineDomain}/check`)).json().verified).toBe(true);
    await owner.delete(mineDomain);

    // After the cooling-off the name is free to claim, but verifying still needs the claimant's token.
    await app.db
      .update(domainReservations)
      .set({ reservedUntil: new Date(Date.now() - 1000) })
      .where(eq(domainReservations.domain, 'go.victim.example'));
    expect((await stranger.put(otherDomain, { domain: 'go.victim.example' })).statusCode).toBe(200);
    expect((await stranger.post(`${otherDomain}/check`)).json().verified).toBe(false);
  });

  it('claiming first locks no one out: the squatter cannot verify, the owner can, and Host serves only the verified one', async () => {
    const theirPage = await pageOf(stranger, other);
    const minePage = await pageOf(owner, mine);
    // The squatter claims a name already pointing at us, before its owner (before: the owner got 409).
    await txtOf(stranger, otherDomain, 'go.owner.example');
    dns.records['go.owner.example'] = { cname: PUBLIC_HOST };
    expect((await stranger.post(`${otherDomain}/check`)).json().verified).toBe(false);

    const txt = await txtOf(owner, mineDomain, 'go.owner.example');
    dns.records['_rally.go.owner.example'] = { txt: [txt] };
    expect((await owner.post(`${mineDomain}/check`)).json().verified).toBe(true);
    expect((await stranger.post(`${otherDomain}/check`)).json().verified).toBe(false);
    // Verified elsewhere: the squatter cannot set it again either.
    await stranger.put(otherDomain, { domain: 'x.other.example' });
    expect((await stranger.put(otherDomain, { domain: 'go.owner.example' })).statusCode).toBe(409);

    expect(await served('go.owner.example', minePage)).toBe(200);
    expect(await served('go.owner.example', theirPage)).toBe(404);
    // An unverified claim pointing at us serves nothing.
    await stranger.put(otherDomain, { domain: 'go.squat.example' });
    dns.records['go.squat.example'] = { cname: PUBLIC_HOST };
    await stranger.post(`${otherDomain}/check`);
    expect(await served('go.squat.example', theirPage)).toBe(404);
  });

  it('two clients with both tokens published checking at once: exactly one gets it verified', async () => {
    const a = await txtOf(owner, mineDomain, 'go.shared.example');
    const b = await txtOf(stranger, otherDomain, 'go.shared.example');
    publish('go.shared.example', [a, b]);
    const [ra, rb] = await Promise.all([
      owner.post(`${mineDomain}/check`),
      stranger.post(`${otherDomain}/check`),
    ]);
    const verified = [ra, rb].filter((r) => r.statusCode === 200 && r.json().verified === true);
    expect(verified).toHaveLength(1);
    const rows = await app.db
      .select()
      .from(clientSettings)
      .where(eq(clientSettings.landingPageDomain, 'go.shared.example'));
    expect(rows.filter((r) => r.landingPageDomainVerifiedAt !== null)).toHaveLength(1);
  });

  it('the re-check takes the verification away when the TXT record is gone and tells the owners; no answer changes nothing', async () => {
    await stranger.put(otherDomain, { domain: 'y.other.example' });
    const txt = await txtOf(owner, mineDomain, 'go.recheck.example');
    publish('go.recheck.example', [txt]);
    const page = await pageOf(owner, mine);
    expect((await owner.post(`${mineDomain}/check`)).json().verified).toBe(true);

    expect(await recheck()).toMatchObject({ lost: 0 });
    dns.records['_rally.go.recheck.example'] = { servfail: true };
    expect(await recheck()).toMatchObject({ lost: 0 });
    expect((await owner.get(mineDomain)).json().verified).toBe(true);

    dns.records['_rally.go.recheck.example'] = { txt: ['something else'] };
    expect(await recheck()).toMatchObject({ lost: 1 });
    expect((await owner.get(mineDomain)).json().verified).toBe(false);
    expect(await served('go.recheck.example', page)).toBe(404);
    const mails = await app.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.clientId, mine), eq(emailOutbox.toAddress, ownerUser.email)));
    expect(mails.map((m) => m.subject)).toContain(
      'go.recheck.example no longer serves the landing pages of Mine',
    );
  });

  it('our own host is refused; bad host names are 422 naming body.domain', async () => {
    const ours = await owner.put(mineDomain, { domain: `lp.${PUBLIC_HOST}` });
    expect(ours.json().errors).toEqual([
      { field: 'body.domain', message: `must be a domain of yours, not ${PUBLIC_HOST}` },
    ]);
    for (const domain of [
      'https://go.mine.example',
      'localhost',
      'go.mine.example/lp',
      '1.2.3.4',
      'go_mine.example',
      '',
    ]) {
      const res = await owner.put(mineDomain, { domain });
      expect(res.statusCode, domain).toBe(422);
      expect(fieldsOf(res.json())).toEqual(['body.domain']);
    }
  });

  it('DELETE of an unverified domain reserves nothing; a check without a domain is a 404', async () => {
    await owner.put(mineDomain, { domain: 'free.mine.example' });
    expect((await owner.delete(mineDomain)).json()).toMatchObject({ domain: null, txt_record: null });
    expect((await owner.post(`${mineDomain}/check`)).statusCode).toBe(404);
    expect((await stranger.put(otherDomain, { domain: 'free.mine.example' })).statusCode).toBe(200);
  });

  it('settings.write is needed to change or check it; the path must name the x-client-id client', async () => {
    for (const res of [
      await manager.put(mineDomain, { domain: 'x.mine.example' }),
      await manager.delete(mineDomain),
      await manager.post(`${mineDomain}/check`),
    ]) {
      expect(res.statusCode).toBe(403);
    }
    expect((await manager.get(mineDomain)).statusCode).toBe(200);
    expect((await stranger.get(mineDomain)).statusCode).toBe(403);
    expect((await stranger.put(mineDomain, { domain: 'steal.mine.example' })).statusCode).toBe(403);
  });
});
