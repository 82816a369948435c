import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { eq, sql } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { landingPages, prospects, suppressions, targets } from '../../db/schema/index.ts';
import { rowsOf } from '../reports/report-sql.ts';
import { neutralAd } from '../tracking/neutral-png.ts';
import { importCsvFile } from '../fileforce/index.ts';
import { desiredHashes } from '../ad-networks/members.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  setVerifiedDomain,
  showing,
} from '../../../test/engagement.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { uuidToBase58 } from '@rally/shared';
import { createSuppressionKey, emailHashSql } from './key.ts';

/**
 * Issue 44's opt-out end to end over real HTTP: a prospect's tag counts impressions; they follow
 * "Why am I seeing this?" from the landing page and stop the ads; their tag then serves the neutral
 * image and counts nothing in every cadence of the client; a re-import of the same person keeps them
 * suppressed (and says so). Also the keyed hash in SQL against Node's, the form's CSRF rules and
 * Global Privacy Control on the landing page.
 */
let app: FastifyInstance;
let base: string;
let acme: string;
let pageId: string;
let cadenceA: number;
let cadenceB: number;
let repId: string;

beforeAll(async () => {
  app = await createTestApp();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  acme = await makeClient(app, 'Acme');
  repId = await makeRep(app, acme, { calendarUrl: 'https://cal.example/maya' });
  await setVerifiedDomain(app, acme, 'cal.example');
  const [page] = await app.db
    .insert(landingPages)
    .values({
      clientId: acme,
      name: 'Offer',
      landingPagePayload: {
        content_html: '<p>Hi</p>',
        footer_html: '',
        hero_html: '<h1>Offer</h1>',
        hero_img: '',
      },
      colors: { background: '#ffffff', text: '#000000', accent: '#1c7ed6' },
    })
    .returning({ id: landingPages.id });
  pageId = page!.id;
  const contentId = await makeContent(app, acme, { landingPageId: pageId });
  cadenceA = await makeCadence(app, acme, { days: { 1: showing(contentId) } });
  cadenceB = await makeCadence(app, acme, { name: 'Second cadence', days: { 1: showing(contentId) } });
}, 60_000);
afterAll(() => app.close());

const impressions = async (id: string) =>
  (await app.db.select({ n: targets.impressions }).from(targets).where(eq(targets.id, id)))[0]!.n;
const tag = (token: string) =>
  fetch(`${base}/t/${token}/ad/300x250.png`, { headers: { 'user-agent': BROWSER_UA } });

describe('the keyed hash', () => {
  it('is the same in SQL (built-in sha256) as in Node, after trimming and lower-casing ASCII', async () => {
    const key = createSuppressionKey('k'.repeat(64));
    for (const raw of ['Ann@Example.COM', '  ann@example.com\t', 'zoë@exämple.org', 'a+b@x.io']) {
      const [row] = rowsOf(await app.db.execute(sql`select ${emailHashSql(key, sql`${raw}::text`)} as h`));
      expect(row!.h).toBe(key.hash(raw));
    }
    expect(key.hash(' Ann@Example.COM ')).toBe(key.hash('ann@example.com'));
    expect(createSuppressionKey('j'.repeat(64)).hash('ann@example.com')).not.toBe(
      key.hash('ann@example.com'),
    );
  });
});

describe('opt-out from the "Why am I seeing this?" page', () => {
  it('counts, opts out, then serves the neutral image and counts nothing in every cadence; a re-import keeps them suppressed', async () => {
    const a = await makeTarget(app, acme, cadenceA, { repId });
    const b = await makeTarget(app, acme, cadenceB, { repId, prospectId: a.prospectId });
    const [person] = await app.db.select().from(prospects).where(eq(prospects.id, a.prospectId));
    const email = person!.email!;

    expect((await tag(a.token)).status).toBe(200);
    await app.tracking.settled();
    expect(await impressions(a.id)).toBe(1);

    // The landing page carries the person's own signed link; the address is nowhere in it.
    const landing = await fetch(`${base}/lp/${uuidToBase58(pageId)}?t=${a.token}`, {
      headers: { 'user-agent': BROWSER_UA },
    });
    const html = await landing.text();
    const link = /<a href="([^"]+)"[^>]*>Why am I seeing this\?<\/a>/.exec(html)?.[1];
    expect(link).toMatch(new RegExp(`/why/${a.token}\\.[A-Za-z0-9_-]{22}$`));
    expect(html).not.toContain(email);

    const why = await fetch(link!.replace(/^https?:\/\/[^/]+/, base));
    expect(why.status).toBe(200);
    const whyHtml = await why.text();
    expect(whyHtml).toContain('This ad was shown to you by <strong>Acme Robotics</strong>');
    expect(whyHtml).toContain('Stop showing me these ads');
    expect(why.headers.get('content-security-policy')).toContain("form-action 'self'");
    const csrf = /name="csrf" value="([^"]+)"/.exec(whyHtml)?.[1];
    expect(csrf).toBeTruthy();
    const action = /<form method="post" action="([^"]+)"/.exec(whyHtml)?.[1];

    const stop = await fetch(`${base}${action}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: new URL(app.config.publicUrl).origin,
        'sec-fetch-site': 'same-origin',
      },
      body: new URLSearchParams({ csrf: csrf! }).toString(),
    });
    expect(stop.status).toBe(303);
    const confirmation = await fetch(`${base}${stop.headers.get('location')}`);
    expect(await confirmation.text()).toContain('You will not see these ads again');

    const [entry] = await app.db.select().from(suppressions).where(eq(suppressions.clientId, acme));
    expect(entry).toMatchObject({ source: 'opt_out', email, removedAt: null, createdBy: null });
    expect(entry!.emailHash).toBe(app.suppressions.key.hash(email));

    for (const t of [a, b]) {
      const image = await tag(t.token);
      expect(Buffer.from(await image.arrayBuffer())).toEqual(neutralAd('300x250'));
    }
    await app.tracking.settled();
    expect(await impressions(a.id)).toBe(1);
    expect(await impressions(b.id)).toBe(0);

    // They leave the client's ad-network audiences (a cadence's audience here); others stay.
    const other = await makeTarget(app, acme, cadenceA, { repId });
    const audience = {
      clientId: acme,
      sourceKind: 'cadence',
      cadenceId: cadenceA,
      cohortId: null,
      journeyStageId: null,
    };
    const members = await desiredHashes(
      app.db,
      audience as unknown as Parameters<typeof desiredHashes>[1],
      (e) => e.trim().toLowerCase(),
      app.suppressions.key,
    );
    const [otherPerson] = await app.db.select().from(prospects).where(eq(prospects.id, other.prospectId));
    expect(members.has(email.toLowerCase())).toBe(false);
    expect(members.has(otherPerson!.email!.toLowerCase())).toBe(true);

    // A re-import of the same person: skipped and counted, and the tag stays neutral.
    const dir = mkdtempSync(path.join(tmpdir(), 'optout-'));
    const file = path.join(dir, 'again.csv');
    writeFileSync(
      file,
      `Email Address,First Name,Last Name,Cadence,Day\n${email.toUpperCase()},Kendall,Ellery,Reimport,1\nnew@example.com,New,Person,Reimport,1\n`,
    );
    const done = await importCsvFile(app, { clientId: acme, kind: 'targets', filePath: file });
    expect(done).toMatchObject({ status: 'done', imported_rows: 1, suppressed_rows: 1 });
    const again = await app.db
      .select({ id: prospects.id })
      .from(prospects)
      .where(sql`${prospects.clientId} = ${acme} and lower(${prospects.email}) = ${email}`);
    expect(again).toHaveLength(1);
    expect(Buffer.from(await (await tag(a.token)).arrayBuffer())).toEqual(neutralAd('300x250'));
    await app.tracking.settled();
    expect(await impressions(a.id)).toBe(1);
  }, 120_000);

  it("refuses a post without the form token, with another target's, or from another site (403); a bad link is 404", async () => {
    const a = await makeTarget(app, acme, cadenceA, { repId });
    const other = await makeTarget(app, acme, cadenceA, { repId });
    const signer = (await import('./why-token.ts')).whySignerFor(app.config.appSecret);
    const path_ = (t: string) => new URL(signer.link(base, t)).pathname;
    const post = (p: string, body: Record<string, string>, headers: Record<string, string> = {}) =>
      fetch(`${base}${p}`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(body).toString(),
      });
    expect((await post(path_(a.token), {})).status).toBe(403);
    expect((await post(path_(a.token), { csrf: signer.formToken(other.token) })).status).toBe(403);
    expect(
      (await post(path_(a.token), { csrf: signer.formToken(a.token) }, { origin: 'https://evil.example' }))
        .status,
    ).toBe(403);
    expect(
      (await post(path_(a.token), { csrf: signer.formToken(a.token) }, { 'sec-fetch-site': 'cross-site' }))
        .status,
    ).toBe(403);
    expect((await fetch(`${base}/why/${a.token}.AAAAAAAAAAAAAAAAAAAAAA`)).status).toBe(404);
    expect((await fetch(`${base}/why/${a.token}`)).status).toBe(404);
    expect(await app.suppressions.isSuppressed(acme, 'nobody@example.com')).toBe(false);
    const [p] = await app.db.select().from(prospects).where(eq(prospects.id, a.prospectId));
    expect(await app.suppressions.isSuppressed(acme, p!.email!)).toBe(false);
    // The e-mail snippet's link: the click URL with /why after it.
    const fromMail = await fetch(`${base}/t/${a.token}/c/why`, { redirect: 'manual' });
    expect(fromMail.status).toBe(303);
    expect(fromMail.headers.get('location')).toBe(path_(a.token));
    expect((await fetch(`${base}/why`)).status).toBe(200);
  }, 60_000);
});

describe('Global Privacy Control on a landing page', () => {
  it('records the view and nothing beyond it: no ETag, no-store, no referrer, no cookie', async () => {
    const a = await makeTarget(app, acme, cadenceA, { repId });
    const res = await fetch(`${base}/lp/${uuidToBase58(pageId)}?t=${a.token}`, {
      headers: { 'user-agent': BROWSER_UA, 'sec-gpc': '1' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('etag')).toBeNull();
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('cache-control')).toBe('private, no-store');
    expect(res.headers.get('vary')).toContain('Sec-GPC');
    const html = await res.text();
    expect(html).toContain('<meta name="referrer" content="no-referrer">');
    await waitFor(async () => {
      await app.tracking.settled();
      const [row] = await app.db.select({ views: targets.views }).from(targets).where(eq(targets.id, a.id));
      return row!.views === 1 ? true : null;
    }, 30_000);
    const plain = await fetch(`${base}/lp/${uuidToBase58(pageId)}?t=${a.token}`, {
      headers: { 'user-agent': BROWSER_UA },
    });
    expect(plain.headers.get('etag')).toBeTruthy();
    expect(await plain.text()).toContain('strict-origin-when-cross-origin');
  }, 60_000);
});
