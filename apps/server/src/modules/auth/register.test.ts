import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { clients, emailOutbox, memberships, users } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { Browser, makeClient, makeUser, PASSWORD } from '../../../test/http.ts';
import { REGISTER_ACCEPTED, sealSignUp } from './register.ts';

const CONFIRM_SUBJECT = 'Finish creating your';
const NOTICE_SUBJECT = 'Someone tried to sign up';
const LINK_INVALID =
  'This sign-up link is invalid, has expired or was already used. Sign in, or sign up again.';

describe('sign-up answers every address alike (issue 37 item 11)', async () => {
  const app = await createTestApp({ env: { PUBLIC_URL: 'http://rally.localhost:3000' } });
  const acme = await makeClient(app, 'Acme');
  const mailsTo = (to: string) =>
    app.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, to)).orderBy(emailOutbox.createdAt);
  /** Waits for the sign-up mail to `to` and gives the token of its link. */
  const linkTo = async (to: string) => {
    const mail = await waitFor(async () =>
      (await mailsTo(to)).find((m) => m.subject.startsWith(CONFIRM_SUBJECT)),
    );
    expect(mail.textBody).toContain('http://rally.localhost:3000/register?confirm=');
    return mail.textBody.match(/\/register\?confirm=([\w.-]+)/)![1]!;
  };
  const signUp = (email: string, extra: Partial<Record<string, string>> = {}, remoteAddress?: string) =>
    new Browser(app).request({
      method: 'POST',
      url: '/v1/api/register',
      remoteAddress,
      payload: {
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        password: 'compilers are fun',
        company_name: 'Navy Labs',
        ...extra,
      },
    });

  it('a known and a new address get the same status, body, headers and no cookie; then different e-mails', async () => {
    // Before this change: 409 "An account with this e-mail address already exists" for the known
    // address, 201 with a session cookie for the new one.
    const known = await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'known@example.com' });
    const a = await signUp('known@example.com');
    const b = await signUp('fresh@example.com');
    expect(a.statusCode).toBe(202);
    expect(b.statusCode).toBe(202);
    expect(a.json()).toEqual({ message: REGISTER_ACCEPTED });
    expect(b.json()).toEqual(a.json());
    expect(a.headers['set-cookie']).toBeUndefined();
    expect(b.headers['set-cookie']).toBeUndefined();
    const headerNames = (h: object) =>
      Object.keys(h)
        .filter((k) => k !== 'x-xsrf-token')
        .sort();
    expect(headerNames(b.headers)).toEqual(headerNames(a.headers));

    // The owner of the known address is told, and nothing of theirs changed.
    const notice = await waitFor(async () =>
      (await mailsTo('known@example.com')).find((m) => m.subject.startsWith(NOTICE_SUBJECT)),
    );
    expect(notice.textBody).toContain('already has one');
    expect(notice.textBody).toContain('http://rally.localhost:3000/reset-password');
    expect(notice.textBody).not.toContain('confirm=');
    await new Browser(app).signIn(known.email, PASSWORD);
    const [still] = await app.db.select().from(users).where(eq(users.id, known.id));
    expect(still?.firstName).not.toBe('Grace');

    // The new address gets the link; nothing is created before it is used.
    await linkTo('fresh@example.com');
    expect(await app.db.select().from(users).where(eq(users.email, 'fresh@example.com'))).toHaveLength(0);
    expect(await app.db.select().from(clients).where(eq(clients.name, 'Navy Labs'))).toHaveLength(0);
  });

  it('replies before looking the address up: the 202 comes while the users table is held', async () => {
    await makeUser(app, { [acme]: 'yellow_sdr' }, { email: 'held@example.com' });
    const statuses: (number | null)[] = [];
    await app.db.transaction(async (tx) => {
      await tx.execute(sql`lock table users in access exclusive mode`);
      for (const email of ['held@example.com', 'held-new@example.com']) {
        const res = await Promise.race([
          signUp(email, {}, '192.0.2.60'),
          new Promise<null>((r) => setTimeout(() => r(null), 3_000)),
        ]);
        statuses.push(res?.statusCode ?? null);
      }
    });
    expect(statuses).toEqual([202, 202]);
    await linkTo('held-new@example.com');
  });

  it('the link with the chosen password creates the user, their company and ownership, signs in, and works once', async () => {
    await signUp('Ada@Example.com', { first_name: 'Ada', last_name: 'Lovelace', company_name: 'Engines' });
    const token = await linkTo('ada@example.com');
    const b = new Browser(app);
    const done = await b.post('/v1/api/register/confirm', { token, password: 'compilers are fun' });
    expect(done.statusCode).toBe(201);
    expect(done.json()).toMatchObject({
      email: 'ada@example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      clients: [{ client_name: 'Engines', role: 'purple_owner', is_default: true }],
    });
    expect(done.cookies.find((c) => c.name === 'rally_auth_token')).toBeDefined();
    expect((await b.get('/v1/api/user/self')).statusCode).toBe(200);
    await new Browser(app).signIn('ada@example.com', 'compilers are fun');

    const again = await new Browser(app).post('/v1/api/register/confirm', {
      token,
      password: 'compilers are fun',
    });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toEqual({ message: LINK_INVALID });
    expect(again.headers['set-cookie']).toBeUndefined();
    expect(await app.db.select().from(clients).where(eq(clients.name, 'Engines'))).toHaveLength(1);
  });

  it('the same link used twice side by side creates one account', async () => {
    await signUp('twice@example.com', { company_name: 'Twice Co' });
    const token = await linkTo('twice@example.com');
    const results = await Promise.all(
      [0, 1, 2].map(() =>
        new Browser(app).post('/v1/api/register/confirm', { token, password: 'compilers are fun' }),
      ),
    );
    expect(results.map((r) => r.statusCode).sort()).toEqual([201, 400, 400]);
    expect(await app.db.select().from(users).where(eq(users.email, 'twice@example.com'))).toHaveLength(1);
    const companies = await app.db.select().from(clients).where(eq(clients.name, 'Twice Co'));
    expect(companies).toHaveLength(1);
    expect(
      await app.db.select().from(memberships).where(eq(memberships.clientId, companies[0]!.id)),
    ).toHaveLength(1);
  });

  it('a wrong password writes nothing (422 body.password); the right one still works after', async () => {
    await signUp('typo@example.com', { company_name: 'Typo Co' });
    const token = await linkTo('typo@example.com');
    const wrong = await new Browser(app).post('/v1/api/register/confirm', { token, password: 'not the one' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].field).toBe('body.password');
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(await app.db.select().from(users).where(eq(users.email, 'typo@example.com'))).toHaveLength(0);
    const right = await new Browser(app).post('/v1/api/register/confirm', {
      token,
      password: 'compilers are fun',
    });
    expect(right.statusCode).toBe(201);
  });

  it('password guesses with a link are limited, counted before checking', async () => {
    await signUp('guess@example.com');
    const token = await linkTo('guess@example.com');
    const guesses = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        new Browser(app).post('/v1/api/register/confirm', { token, password: `guess number ${i}` }),
      ),
    );
    expect(guesses.filter((g) => g.statusCode === 422)).toHaveLength(5);
    expect(guesses.filter((g) => g.statusCode === 429)).toHaveLength(3);
    const right = await new Browser(app).post('/v1/api/register/confirm', {
      token,
      password: 'compilers are fun',
    });
    expect(right.statusCode).toBe(429);
    expect(await app.db.select().from(users).where(eq(users.email, 'guess@example.com'))).toHaveLength(0);
  });

  it('an expired, altered or differently sealed link answers 400 and creates nothing', async () => {
    const signUpOf = async (email: string, expiresAt: number) => ({
      email,
      first_name: 'Old',
      last_name: 'Link',
      company_name: 'Stale Co',
      password_hash: await hashPassword('compilers are fun'),
      expires_at: expiresAt,
    });
    const expired = sealSignUp(app.config.appSecret, await signUpOf('stale@example.com', Date.now() - 1000));
    const valid = sealSignUp(app.config.appSecret, await signUpOf('stale@example.com', Date.now() + 60_000));
    const altered = valid.slice(0, -4) + (valid.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    // A secret at rest (the other key) is not a sign-up link.
    const atRest = createSecretBox(app.config.appSecret).encrypt(
      JSON.stringify({ purpose: 'register', ...(await signUpOf('stale@example.com', Date.now() + 60_000)) }),
    );
    for (const token of [expired, altered, atRest, 'x'.repeat(40)]) {
      const res = await new Browser(app).post('/v1/api/register/confirm', {
        token,
        password: 'compilers are fun',
      });
      expect(res.statusCode, token).toBe(400);
      expect(res.json()).toEqual({ message: LINK_INVALID });
    }
    expect(await app.db.select().from(users).where(eq(users.email, 'stale@example.com'))).toHaveLength(0);
    // The untouched link works.
    const ok = await new Browser(app).post('/v1/api/register/confirm', {
      token: valid,
      password: 'compilers are fun',
    });
    expect(ok.statusCode).toBe(201);
  });

  it('422 naming each bad field, 403 without the CSRF token', async () => {
    const res = await new Browser(app).post('/v1/api/register', {
      first_name: '',
      last_name: 'X',
      email: 'not-an-email',
      password: 'short',
      company_name: 'C',
    });
    expect(res.statusCode).toBe(422);
    expect(
      res
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['body.email', 'body.first_name', 'body.password']);
    const confirm = await new Browser(app).post('/v1/api/register/confirm', { token: 'short', password: '' });
    expect(confirm.statusCode).toBe(422);
    expect(
      confirm
        .json()
        .errors.map((e: { field: string }) => e.field)
        .sort(),
    ).toEqual(['body.password', 'body.token']);
    const noCsrf = await new Browser(app).post('/v1/api/register', {}, { csrf: false });
    expect(noCsrf.statusCode).toBe(403);
  });

  it('5 sign-ups per address and 20 per IP in the window, then 429 with Retry-After', async () => {
    for (let i = 0; i < 5; i++)
      expect((await signUp('many@example.com', {}, `198.51.100.${i + 1}`)).statusCode).toBe(202);
    const sixth = await signUp('many@example.com', {}, '198.51.100.99');
    expect(sixth.statusCode).toBe(429);
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);

    const ip = '198.51.100.200';
    for (let i = 0; i < 20; i++) expect((await signUp(`ip-${i}@example.com`, {}, ip)).statusCode).toBe(202);
    expect((await signUp('ip-last@example.com', {}, ip)).statusCode).toBe(429);
    expect((await signUp('ip-last@example.com', {}, '203.0.113.7')).statusCode).toBe(202);
  });
});
