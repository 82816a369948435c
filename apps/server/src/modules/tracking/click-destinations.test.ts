import { and, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { clientDomains, clientSettings, engagementEvents, targets } from '../../db/schema/index.ts';
import { TEST_DATABASE_URL, createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import {
  BROWSER_UA,
  CLICK_HEADERS,
  rawGet,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  markLandingDomainChecked,
  setVerifiedDomain,
  setWebsite,
  showing,
} from '../../../test/engagement.ts';

/**
 * Issue 37.8: the click tag redirects straight only to the client's verified domains (decision 0013)
 * and its verified landing domain, and to our own pages; any other destination gets a page that
 * names it, so the tag on our domain is no open redirect. The click is counted as before, and the
 * verified domains come from the target's cached state (no query per click), refreshed when they
 * change through the client's tracking state version (decision 0012).
 */
let app: FastifyInstance;
let base: string;

const listen = async (a: FastifyInstance) => {
  await a.listen({ host: '127.0.0.1', port: 0 });
  const address = a.server.address();
  return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
};

beforeAll(async () => {
  app = await createTestApp();
  base = await listen(app);
});
afterAll(() => app.close());

const click = async (token: string, at = base, ua = BROWSER_UA) => {
  const res = await rawGet(`${at}/t/${token}/c`, { ...CLICK_HEADERS, 'user-agent': ua });
  return { res, body: await res.text() };
};

/** A client whose target's click falls back to the client's website (no landing page, no calendar). */
async function websiteTarget(name: string) {
  const clientId = await makeClient(app, name);
  const rep = await makeRep(app, clientId);
  const contentId = await makeContent(app, clientId);
  const cadenceId = await makeCadence(app, clientId, { days: { 1: showing(contentId) } });
  const target = await makeTarget(app, clientId, cadenceId, { repId: rep });
  return { clientId, target };
}

const clicksOf = async (targetId: string) => {
  await app.tracking.settled();
  const events = await app.db
    .select()
    .from(engagementEvents)
    .where(and(eq(engagementEvents.targetId, targetId), eq(engagementEvents.type, 'click')));
  const [row] = await app.db.select({ clicks: targets.clicks }).from(targets).where(eq(targets.id, targetId));
  return { events: events.length, counter: row?.clicks };
};

/** Where a click answer sends the person: the redirect's Location, or the page's Continue link. */
function destination({ res, body }: { res: Response; body: string }) {
  if (res.status === 302) return { straight: true, to: res.headers.get('location') };
  const href = body.match(/<a class="go" href="([^"]+)"/)?.[1]?.replace(/&amp;/g, '&');
  return { straight: false, to: href };
}

describe('GET /t/{token}/c and the client’s verified domains', () => {
  it('a destination off the verified domains gets a page naming it, not a redirect; the click is counted once', async () => {
    const { clientId, target } = await websiteTarget('Open Redirect');
    await setWebsite(app, clientId, 'https://phish.example/login?next=/account');
    const out = await click(target.token);
    expect(out.res.status).toBe(200);
    expect(out.res.headers.get('location')).toBeNull();
    expect(out.res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(out.res.headers.get('cache-control')).toBe('no-store');
    expect(out.res.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(out.res.headers.get('referrer-policy')).toBe('no-referrer');
    expect(out.body).toContain('<h1>This link goes to phish.example</h1>');
    expect(out.body).toContain(
      '<a class="go" href="https://phish.example/login?next=/account" rel="noreferrer nofollow">Continue to phish.example</a>',
    );
    expect(await clicksOf(target.id)).toEqual({ events: 1, counter: 1 });
    // A bot is shown the same page and counts nothing.
    const bot = await click(target.token, base, 'Mozilla/5.0 (compatible; Googlebot/2.1)');
    expect(destination(bot)).toEqual({ straight: false, to: 'https://phish.example/login?next=/account' });
    expect(await clicksOf(target.id)).toEqual({ events: 1, counter: 1 });
  });

  it('a verified domain and its subdomains go straight; look-alikes and credentials tricks do not', async () => {
    const { clientId, target } = await websiteTarget('Verified');
    await setVerifiedDomain(app, clientId, 'acme.example');
    const cases: [string, boolean, string][] = [
      ['https://acme.example/offer', true, 'https://acme.example/offer'],
      ['https://www.ACME.example/offer', true, 'https://www.ACME.example/offer'],
      ['https://acme.example.evil.test/', false, 'https://acme.example.evil.test/'],
      ['https://evilacme.example/', false, 'https://evilacme.example/'],
      ['https://acme.example@evil.test/', false, 'https://acme.example@evil.test/'],
    ];
    for (const [website, straight, to] of cases) {
      await setWebsite(app, clientId, website);
      expect(destination(await click(target.token)), website).toEqual({ straight, to });
    }
    const tricked = await click(target.token);
    expect(tricked.body).toContain('<h1>This link goes to evil.test</h1>');
    expect((await clicksOf(target.id)).events).toBe(cases.length + 1);
  });

  it('the verified landing domain and our own host go straight; an unverified landing domain does not', async () => {
    const { clientId, target } = await websiteTarget('Landing');
    await app.db
      .insert(clientSettings)
      .values({
        clientId,
        colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
        websiteUrl: 'https://go.landing.example/spring',
        landingPageDomain: 'go.landing.example',
      })
      .onConflictDoUpdate({
        target: clientSettings.clientId,
        set: { websiteUrl: 'https://go.landing.example/spring', landingPageDomain: 'go.landing.example' },
      });
    expect(destination(await click(target.token)).straight).toBe(false);
    await markLandingDomainChecked(app, clientId);
    await app.db
      .update(clientSettings)
      .set({ landingPageDomainVerifiedAt: new Date() })
      .where(eq(clientSettings.clientId, clientId));
    expect(destination(await click(target.token))).toEqual({
      straight: true,
      to: 'https://go.landing.example/spring',
    });
    await setWebsite(app, clientId, `${app.config.publicUrl}/lp/2Fh8Ys`);
    expect(destination(await click(target.token))).toEqual({
      straight: true,
      to: `${app.config.publicUrl}/lp/2Fh8Ys`,
    });
  });

  it('verifying or losing a domain shows at the next click: the cached state is read again', async () => {
    const { clientId, target } = await websiteTarget('Later');
    await setWebsite(app, clientId, 'https://later.example/');
    const version = async () => {
      const rows = (await app.db.execute(
        sql`select version::int as v from tracking_state_versions where client_id = ${clientId}`,
      )) as unknown as { rows: { v: number }[] };
      return rows.rows[0]?.v ?? 0;
    };
    expect(destination(await click(target.token)).straight).toBe(false);
    const before = await version();
    await setVerifiedDomain(app, clientId, 'later.example');
    expect(await version()).toBeGreaterThan(before);
    expect(destination(await click(target.token)).straight).toBe(true);
    // A re-check that finds the record again moves nothing; losing it does.
    const kept = await version();
    await app.db
      .update(clientDomains)
      .set({ lastCheckedAt: new Date(), lastCheckMessage: 'still there' })
      .where(eq(clientDomains.clientId, clientId));
    expect(await version()).toBe(kept);
    await setVerifiedDomain(app, clientId, 'later.example', false);
    expect(destination(await click(target.token)).straight).toBe(false);
    expect((await clicksOf(target.id)).events).toBe(3);
  });

  it.skipIf(!TEST_DATABASE_URL)(
    'a domain verified through another instance shows at this instance’s next click (PostgreSQL)',
    async () => {
      const { clientId, target } = await websiteTarget('Two Instances');
      await setWebsite(app, clientId, 'https://both.example/');
      const other = await createTestApp({ env: { DATABASE_URL: app.config.databaseUrl } });
      const otherBase = await listen(other);
      expect(destination(await click(target.token, otherBase)).straight).toBe(false);
      expect(destination(await click(target.token)).straight).toBe(false);
      await setVerifiedDomain(other, clientId, 'both.example');
      expect(destination(await click(target.token)).straight).toBe(true);
      await setVerifiedDomain(app, clientId, 'both.example', false);
      expect(destination(await click(target.token, otherBase)).straight).toBe(false);
      await other.tracking.settled();
      expect((await clicksOf(target.id)).events).toBe(4);
    },
  );
});
