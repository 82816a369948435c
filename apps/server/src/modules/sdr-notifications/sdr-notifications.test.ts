import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { emailOutbox, salesReps, sdrNotificationSettings, targets } from '../../db/schema/index.ts';
import { createTestApp, startSmtpServer, waitFor } from '../../../test/helpers.ts';
import {
  BROWSER_UA,
  makeCadence,
  makeContent,
  makeRep,
  makeTarget,
  showing,
} from '../../../test/engagement.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

const DAY = 86_400_000;
const fieldsOf = (res: { json(): unknown }) =>
  ((res.json() as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);

/**
 * SPEC.md §7 "GET and POST /rest/client/{id}/sdr_notifications" (issue 17): per rep, an e-mail when
 * a prospect of theirs becomes a superprospect, and a daily or weekly digest, through the outbox and
 * a real SMTP server on loopback.
 */
describe('SDR notifications', async () => {
  const smtp = await startSmtpServer();
  afterAll(() => smtp.close());
  const app = await createTestApp({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Rally <mail@rally.test>' } });
  const clientId = await makeClient(app, 'Acme');
  const foreignClient = await makeClient(app, 'Foreign');
  const maya = await makeRep(app, clientId, { firstName: 'Maya' });
  const omar = await makeRep(app, clientId, { firstName: 'Omar' });
  const foreignRep = await makeRep(app, foreignClient, { firstName: 'Fay' });
  const emailOf = async (id: string) =>
    (await app.db.select().from(salesReps).where(eq(salesReps.id, id)))[0]!.email!;
  const content = await makeContent(app, clientId, { landingPageUrl: 'https://acme.example/welcome' });
  const cadence = await makeCadence(app, clientId, { name: 'Q3 Outbound', days: { 1: showing(content) } });
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [clientId]: 'yellow_sdr' });
  const { browser: viewer } = await signedIn(app, { [clientId]: 'grey_viewer' });
  const url = `/v1/rest/client/${clientId}/sdr_notifications`;
  const emailOfMaya = await emailOf(maya);
  const mailsTo = (address: string) => smtp.received.filter((m) => m.to.includes(address));

  it('lists every active rep, both notifications off by default', async () => {
    const res = await sdr.get(url);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reps).toEqual([
      {
        sales_rep_id: maya,
        name: 'Maya Lindgren',
        email: await emailOf(maya),
        super_email: false,
        digest: 'off',
        last_digest_at: null,
      },
      expect.objectContaining({ sales_rep_id: omar, super_email: false, digest: 'off' }),
    ]);
    expect(res.json().reps.map((r: { sales_rep_id: string }) => r.sales_rep_id)).not.toContain(foreignRep);
  });

  it('saves the listed reps only; a superprospect of Maya e-mails her, not Omar', async () => {
    const res = await owner.post(url, {
      reps: [
        { sales_rep_id: maya, super_email: true, digest: 'daily' },
        { sales_rep_id: omar, super_email: false, digest: 'weekly' },
      ],
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().reps).toEqual([
      expect.objectContaining({ sales_rep_id: maya, super_email: true, digest: 'daily' }),
      expect.objectContaining({ sales_rep_id: omar, super_email: false, digest: 'weekly' }),
    ]);
    // Saving one rep leaves the other as it was.
    await owner.post(url, { reps: [{ sales_rep_id: omar, super_email: false, digest: 'weekly' }] });
    expect((await sdr.get(url)).json().reps[0]).toMatchObject({ super_email: true, digest: 'daily' });

    // A click makes Kendall (Maya's prospect) a superprospect: the tracking module tells us.
    const kendall = await makeTarget(app, clientId, cadence, { repId: maya });
    const omars = await makeTarget(app, clientId, cadence, { repId: omar });
    for (const t of [kendall, omars]) {
      const click = await app.inject({ url: `/t/${t.token}/c`, headers: { 'user-agent': BROWSER_UA } });
      // acme.example is no verified domain of the client: the page naming it (issue 37.8), counted.
      expect(click.statusCode).toBe(200);
    }
    const mail = await waitFor(() => mailsTo(emailOfMaya).find((m) => /superprospect/.test(m.raw)));
    expect(mail.raw).toMatch(/Subject: Kendall .* is now a superprospect/);
    // The body as read (quoted-printable soft line breaks joined).
    const body = mail.raw.replace(/=\r\n/g, '').replace(/=3D/g, '=');
    expect(body).toContain('Q3 Outbound');
    expect(body).toContain(`/client-settings/notifications?client_id=${clientId}`);
    const [row] = await app.db.select().from(targets).where(eq(targets.id, kendall.id));
    expect(row!.superDate).toBeInstanceOf(Date);
    // Omar did not ask for it: nothing sent to him.
    await new Promise((r) => setTimeout(r, 500));
    expect(mailsTo(await emailOf(omar))).toHaveLength(0);
    // Stored in the outbox with the client, and sent.
    const stored = await waitFor(async () => {
      const rows = await app.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, emailOfMaya));
      return rows.find((r) => r.status === 'sent');
    });
    expect(stored.clientId).toBe(clientId);
  });

  it('digests: daily for Maya with her new superprospect; weekly for Omar once a week; never twice', async () => {
    const now = new Date(Date.now() + 60_000);
    const sent = await app.sdrNotifications.runDigests(now);
    expect(sent).toBe(2);
    const daily = await waitFor(() => mailsTo(emailOfMaya).find((m) => /daily Rally digest/.test(m.raw)));
    expect(daily.raw).toMatch(/Subject: Your daily Rally digest: 1 new superprospect/);
    expect(daily.raw).toMatch(/1 clicks/);
    const weekly = await waitFor(() => smtp.received.find((m) => /weekly Rally digest/.test(m.raw)));
    expect(weekly.to).toEqual([await emailOf(omar)]);
    // Run again at once (a re-run, or a second worker): nothing is due.
    expect(await app.sdrNotifications.runDigests(now)).toBe(0);
    // A day later: Maya's daily is due but nothing happened, so no e-mail; Omar's weekly is not due.
    expect(await app.sdrNotifications.runDigests(new Date(now.getTime() + DAY + 1000))).toBe(0);
    const [maya1] = await app.db
      .select()
      .from(sdrNotificationSettings)
      .where(eq(sdrNotificationSettings.salesRepId, maya));
    expect(maya1!.lastDigestAt!.getTime()).toBe(now.getTime() + DAY + 1000);
    const [omar1] = await app.db
      .select()
      .from(sdrNotificationSettings)
      .where(eq(sdrNotificationSettings.salesRepId, omar));
    expect(omar1!.lastDigestAt!.getTime()).toBe(now.getTime());
  });

  it("another client's rep is not found (404) and is never changed", async () => {
    const res = await owner.post(url, {
      reps: [{ sales_rep_id: foreignRep, super_email: true, digest: 'daily' }],
    });
    expect(res.statusCode).toBe(404);
    const rows = await app.db
      .select()
      .from(sdrNotificationSettings)
      .where(eq(sdrNotificationSettings.salesRepId, foreignRep));
    expect(rows).toHaveLength(0);
    expect((await owner.get(`/v1/rest/client/${foreignClient}/sdr_notifications`)).statusCode).toBe(403);
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [unknown, string][] = [
      [{}, 'body.reps'],
      [{ reps: [] }, 'body.reps'],
      [{ reps: [{ sales_rep_id: 'x', super_email: true, digest: 'daily' }] }, 'body.reps.0.sales_rep_id'],
      [{ reps: [{ sales_rep_id: maya, super_email: 'yes', digest: 'daily' }] }, 'body.reps.0.super_email'],
      [{ reps: [{ sales_rep_id: maya, super_email: true, digest: 'hourly' }] }, 'body.reps.0.digest'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(url, body);
      expect(res.statusCode, field).toBe(422);
      expect(fieldsOf(res), field).toEqual([field]);
    }
  });

  it('401 signed out; 403 without reports.read (GET) or settings.write (POST)', async () => {
    const anon = new Browser(app);
    anon.clientId = clientId;
    expect((await anon.get(url)).statusCode).toBe(401);
    expect((await anon.post(url, { reps: [] })).statusCode).toBe(401);
    const get = await viewer.get(url);
    expect(get.statusCode).toBe(403);
    expect(get.json().message).toMatch(/reports\.read/);
    const post = await sdr.post(url, { reps: [{ sales_rep_id: maya, super_email: false, digest: 'off' }] });
    expect(post.statusCode).toBe(403);
    expect(post.json().message).toMatch(/settings\.write/);
  });
});
