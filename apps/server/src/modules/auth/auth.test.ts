import { Secret, TOTP } from 'otpauth';
import { eq, sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { authFailures, authTokens, clients, memberships, sessions, users } from '../../db/schema/index.ts';
import { NOT_AUTHENTICATED } from '../../lib/access.ts';
import { createTestApp, startSmtpServer, waitFor } from '../../../test/helpers.ts';
import { Browser, makeClient, makeUser, PASSWORD, signedIn } from '../../../test/http.ts';

const totpNow = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

describe('sign-in with credentials (POST /v1/api/auth)', async () => {
  const app = await createTestApp();
  const acme = await makeClient(app, 'Acme');

  it('starts a session: HttpOnly SameSite=Lax cookie, a script-visible hint, and self answers', async () => {
    const user = await makeUser(app, { [acme]: 'purple_owner' }, { firstName: 'Ada', lastName: 'Lovelace' });
    const b = new Browser(app);
    const res = await b.post('/v1/api/auth', { email: user.email.toUpperCase(), password: PASSWORD });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ mfa: false });
    const cookie = res.cookies.find((c) => c.name === 'rally_auth_token')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: '/' });
    expect(cookie.secure).toBeFalsy(); // localhost over http
    expect(res.cookies.find((c) => c.name === 'rally_has_auth_token')?.httpOnly).toBeFalsy();

    const self = await b.get('/v1/api/user/self', { clientId: null });
    expect(self.statusCode).toBe(200);
    expect(self.json()).toMatchObject({
      id: user.id,
      first_name: 'Ada',
      last_name: 'Lovelace',
      mfa_enabled: false,
      clients: [
        {
          client_id: acme,
          client_name: 'Acme',
          is_default: true,
          role: 'purple_owner',
          permissions: expect.arrayContaining(['billing_details.read']),
        },
      ],
    });
    // Only the token's hash is stored.
    const [row] = await app.db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(row?.tokenHash).not.toBe(cookie.value);
    expect(row?.tokenHash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers an unknown user and a wrong password the same way', async () => {
    const user = await makeUser(app, { [acme]: 'yellow_sdr' });
    const wrong = await new Browser(app).post('/v1/api/auth', {
      email: user.email,
      password: 'nope-nope-nope',
    });
    const unknown = await new Browser(app).post('/v1/api/auth', {
      email: 'nobody@example.com',
      password: 'nope-nope-nope',
    });
    expect(wrong.statusCode).toBe(400);
    expect(unknown.statusCode).toBe(400);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ message: 'Invalid email or password.' });
  });

  it('422 naming the field for bad input, 403 without the CSRF token', async () => {
    const bad = await new Browser(app).post('/v1/api/auth', { email: '', password: 'x' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.email');
    const noCsrf = await new Browser(app).post(
      '/v1/api/auth',
      { email: 'a@b.co', password: 'x' },
      { csrf: false },
    );
    expect(noCsrf.statusCode).toBe(403);
  });

  it('rotates the session id at sign-in and deletes the session at logout', async () => {
    const user = await makeUser(app, { [acme]: 'yellow_sdr' });
    const b = await new Browser(app).signIn(user.email, PASSWORD);
    const first = b.cookies.get('rally_auth_token')!;
    await b.signIn(user.email, PASSWORD);
    const second = b.cookies.get('rally_auth_token')!;
    expect(second).not.toBe(first);
    const stale = await app.inject({
      url: '/v1/api/user/self',
      headers: { cookie: `rally_auth_token=${first}` },
    });
    expect(stale.statusCode).toBe(401);

    const out = await b.post('/v1/api/logout');
    expect(out.statusCode).toBe(204);
    const after = await app.inject({
      url: '/v1/api/user/self',
      headers: { cookie: `rally_auth_token=${second}` },
    });
    expect(after.statusCode).toBe(401);
    expect(after.json()).toEqual({ message: NOT_AUTHENTICATED });
    expect(await app.db.select().from(sessions).where(eq(sessions.userId, user.id))).toHaveLength(0);
  });

  it('sends X-Xsrf-Token on every API response, bound to the session', async () => {
    const user = await makeUser(app, { [acme]: 'yellow_sdr' });
    const b = new Browser(app);
    await b.get('/v1/api/auth/csrf');
    const before = b.csrf;
    expect(before).toMatch(/^[\w-]{20,}$/);
    await b.signIn(user.email, PASSWORD);
    expect(b.csrf).not.toBe(before);
    // The anonymous token no longer works once signed in.
    const res = await b.patch('/v1/api/user/self', { first_name: 'X' }, { csrf: before });
    expect(res.statusCode).toBe(403);
  });
});

describe('brute force', () => {
  it('repeated wrong passwords reach 429 with Retry-After; then a correct password is refused until the window passes', async () => {
    // The window must outlast five argon2 checks on a busy two-core machine (a 2 s one did not, once,
    // in CI, nor a 6 s one at load 20, nor a 20 s one in a CI-like run at load 13); the test then waits
    // only as long as Retry-After says.
    const app = await createTestApp({ env: { LOGIN_MAX_ATTEMPTS: '3', LOGIN_WINDOW_SECONDS: '45' } });
    const user = await makeUser(app, { [await makeClient(app)]: 'yellow_sdr' });
    const b = new Browser(app);
    for (let i = 0; i < 3; i++)
      expect(
        (await b.post('/v1/api/auth', { email: user.email, password: 'wrong-password' })).statusCode,
      ).toBe(400);
    const limited = await b.post('/v1/api/auth', { email: user.email, password: 'wrong-password' });
    expect(limited.statusCode).toBe(429);
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    const refused = await b.post('/v1/api/auth', { email: user.email, password: PASSWORD });
    expect(refused.statusCode).toBe(429);
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeLessThanOrEqual(45);
    await new Promise((r) => setTimeout(r, retryAfter * 1000 + 100));
    expect((await b.post('/v1/api/auth', { email: user.email, password: PASSWORD })).statusCode).toBe(200);
    // Its own app and five argon2 checks took 46 s on a machine shared by five suites.
  }, 240_000);
});

describe('two-factor authentication (TOTP)', async () => {
  const app = await createTestApp();
  const acme = await makeClient(app);

  it('enrols with a QR code, asks for a code at sign-in, accepts a recovery code once, and turns off with a code', async () => {
    const { user, browser } = await signedIn(app, { [acme]: 'purple_owner' });
    const enrol = await browser.post('/v1/api/user/mfa');
    expect(enrol.statusCode).toBe(200);
    const { secret, otpauth_url, qr_code } = enrol.json();
    expect(otpauth_url).toMatch(/^otpauth:\/\/totp\/Rally:/);
    expect(qr_code).toMatch(/^data:image\/png;base64,/);

    const wrong = await browser.post('/v1/api/user/mfa/confirm', { code: '000000' });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].field).toBe('body.code');
    const confirm = await browser.post('/v1/api/user/mfa/confirm', { code: totpNow(secret) });
    expect(confirm.statusCode).toBe(200);
    const codes: string[] = confirm.json().recovery_codes;
    expect(codes).toHaveLength(10);
    const [row] = await app.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.mfaSecretEnc).not.toContain(secret); // encrypted at rest

    const b = new Browser(app);
    const step1 = await b.post('/v1/api/auth', { email: user.email, password: PASSWORD });
    expect(step1.json()).toEqual({ mfa: true });
    expect((await b.get('/v1/api/user/self')).statusCode).toBe(401);
    expect((await b.post('/v1/api/auth/mfa', { code: '123456' })).statusCode).toBe(400);
    const step2 = await b.post('/v1/api/auth/mfa', { code: totpNow(secret) });
    expect(step2.statusCode).toBe(200);
    expect(step2.json()).toEqual({ ok: true });
    expect((await b.get('/v1/api/user/self')).json().mfa_enabled).toBe(true);

    const r = new Browser(app);
    await r.post('/v1/api/auth', { email: user.email, password: PASSWORD });
    expect((await r.post('/v1/api/auth/mfa', { code: codes[0] })).statusCode).toBe(200);
    const again = new Browser(app);
    await again.post('/v1/api/auth', { email: user.email, password: PASSWORD });
    expect((await again.post('/v1/api/auth/mfa', { code: codes[0] })).statusCode).toBe(400);

    expect((await b.delete('/v1/api/user/mfa', { code: '000000' })).statusCode).toBe(422);
    expect((await b.delete('/v1/api/user/mfa', { code: totpNow(secret) })).statusCode).toBe(204);
    expect(
      (await new Browser(app).post('/v1/api/auth', { email: user.email, password: PASSWORD })).json(),
    ).toEqual({ mfa: false });
  });

  it('the MFA step without a pending sign-in is refused', async () => {
    const res = await new Browser(app).post('/v1/api/auth/mfa', { code: '123456' });
    expect(res.statusCode).toBe(400);
    expect(res.json().message).toMatch(/sign in again/);
  });
});

// Each test runs a dozen or more argon2 password checks: at load 20 one of them outlasted 60 s.
describe(
  'wrong second-factor codes are counted per account and per IP, across sign-ins',
  { timeout: 180_000 },
  async () => {
    const smtp = await startSmtpServer();
    afterAll(() => smtp.close());
    const app = await createTestApp({ env: { SMTP_URL: smtp.url } });
    const acme = await makeClient(app);
    const lockMails = (to: string) =>
      smtp.received.filter((m) => m.to.includes(to) && /two-step verification locked/.test(m.raw));

    /** A user with TOTP on and its recovery codes. */
    const totpUser = async () => {
      const { user, browser } = await signedIn(app, { [acme]: 'yellow_sdr' });
      const { secret } = (await browser.post('/v1/api/user/mfa')).json();
      const confirm = await browser.post('/v1/api/user/mfa/confirm', { code: totpNow(secret) });
      return { user, secret, codes: confirm.json().recovery_codes as string[], browser };
    };
    const passwordStep = async (email: string, remoteAddress = '127.0.0.1') => {
      const b = new Browser(app);
      const res = await b.request({
        method: 'POST',
        url: '/v1/api/auth',
        payload: { email, password: PASSWORD },
        remoteAddress,
      });
      expect(res.json()).toEqual({ mfa: true });
      return b;
    };
    const code = (b: Browser, c: string, remoteAddress = '127.0.0.1') =>
      b.request({ method: 'POST', url: '/v1/api/auth/mfa', payload: { code: c }, remoteAddress });
    const wrongFor = (secret: string) => (totpNow(secret) === '000000' ? '111111' : '000000');

    it('4 sign-ins × 5 wrong codes: locked at 10, a right code and a recovery code refused with 429, one e-mail', async () => {
      const { user, secret, codes } = await totpUser();
      const wrong = wrongFor(secret);
      const statuses: number[] = [];
      let lockedAt = 0;
      for (let signIn = 0; signIn < 4; signIn++) {
        const b = await passwordStep(user.email);
        for (let i = 0; i < 5; i++) {
          statuses.push((await code(b, wrong)).statusCode);
          if (statuses.length === 10) lockedAt = Date.now();
        }
      }
      // Five per sign-in used to be the only bound: 20 codes were checked. Now the 10th locks the account.
      expect(statuses.slice(0, 9)).toEqual(Array(9).fill(400));
      expect(statuses.slice(9)).toEqual(Array(11).fill(429));

      const b = await passwordStep(user.email);
      const right = await code(b, totpNow(secret));
      expect(right.statusCode).toBe(429);
      // 15 minutes from the 10th code, less the time taken since (the rest of the codes and a sign-in:
      // 134 s of it in a CI run at load 15-20, where a fixed 800 s floor failed).
      const sinceLock = Math.ceil((Date.now() - lockedAt) / 1000);
      expect(Number(right.headers['retry-after'])).toBeGreaterThanOrEqual(900 - sinceLock - 1);
      expect(Number(right.headers['retry-after'])).toBeLessThanOrEqual(900);
      expect(right.json().message).toMatch(/Too many wrong codes.*locked for 15 minutes/);
      expect((await code(b, codes[0]!)).statusCode).toBe(429);
      expect(b.cookies.get('rally_auth_token')).toBeUndefined();

      const mail = await waitFor(() => lockMails(user.email).at(0));
      expect(mail.raw).toMatch(/10 wrong two-step verification codes/);
      await new Promise((r) => setTimeout(r, 500));
      expect(lockMails(user.email)).toHaveLength(1);

      // The count lives in the database: another process (or a restart) sees the same lock-out.
      const [row] = await app.db.select().from(authFailures).where(eq(authFailures.key, user.id));
      expect(row).toMatchObject({ scope: 'mfa-account', failures: 10 });
      expect(row!.lockedUntil!.getTime()).toBeGreaterThan(Date.now());

      // Once the lock-out has passed, the right code signs in; the recovery code was not spent by the refusal.
      // (The same sign-in: five right passwords without a right code use up the password limit.)
      await app.db
        .update(authFailures)
        .set({ lockedUntil: new Date(Date.now() - 1000) })
        .where(eq(authFailures.key, user.id));
      expect((await code(b, codes[0]!)).statusCode).toBe(200);
      expect((await b.get('/v1/api/user/self')).statusCode).toBe(200);
      expect(lockMails(user.email)).toHaveLength(1);
    });

    it('guesses sent side by side cannot slip past the limit: at most 10 codes are checked', async () => {
      const { user, secret } = await totpUser();
      const wrong = wrongFor(secret);
      // An address of its own: the failures it adds must not count against the other tests' IP.
      const ip = '192.0.2.77';
      // Four sign-ins, their 20 codes sent at once: each would see "not locked yet" before any failure
      // was counted if the check and the count were separate steps (mfa-concurrency.test.ts sends more).
      const steps: Browser[] = [];
      for (let i = 0; i < 4; i++) steps.push(await passwordStep(user.email, ip));
      const statuses = await Promise.all(
        steps
          .flatMap((b) => Array.from({ length: 5 }, () => code(b, wrong, ip)))
          .map(async (r) => (await r).statusCode),
      );
      expect(statuses.filter((s) => s === 400).length).toBeLessThanOrEqual(9);
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(11);
      const [row] = await app.db.select().from(authFailures).where(eq(authFailures.key, user.id));
      expect(row!.lockedUntil!.getTime()).toBeGreaterThan(Date.now());
      // The fifth sign-in (the password limit, which a right password no longer resets).
      const b = await passwordStep(user.email, ip);
      const right = await code(b, totpNow(secret), ip);
      expect(right.statusCode).toBe(429);
      expect(right.json().message).toMatch(/Too many wrong codes/);
    });

    it('recovery-code guesses count the same, and turning MFA off with wrong codes too', async () => {
      const { user, secret, browser } = await totpUser();
      const wrong = wrongFor(secret);
      for (let i = 0; i < 5; i++) {
        const b = await passwordStep(user.email);
        expect((await code(b, 'aaaaa-bbbbb')).statusCode).toBe(400);
      }
      for (let i = 0; i < 4; i++)
        expect((await browser.delete('/v1/api/user/mfa', { code: wrong })).statusCode).toBe(422);
      expect((await browser.delete('/v1/api/user/mfa', { code: wrong })).statusCode).toBe(429);
      expect((await browser.delete('/v1/api/user/mfa', { code: totpNow(secret) })).statusCode).toBe(429);
      await waitFor(() => lockMails(user.email).at(0));
    });

    it('a right code clears the account count', async () => {
      const { user, secret } = await totpUser();
      const ip = '192.0.2.33';
      const b = await passwordStep(user.email, ip);
      for (let i = 0; i < 4; i++) expect((await code(b, wrongFor(secret), ip)).statusCode).toBe(400);
      expect((await code(b, totpNow(secret), ip)).statusCode).toBe(200);
      expect(await app.db.select().from(authFailures).where(eq(authFailures.key, user.id))).toEqual([]);
    });

    it('one IP guessing across many accounts is locked at three times the account limit', async () => {
      const ip = '198.51.100.7';
      const statuses: number[] = [];
      for (let i = 0; i < 8; i++) {
        const { user, secret } = await totpUser();
        const b = await passwordStep(user.email, ip);
        for (let j = 0; j < 4; j++) statuses.push((await code(b, wrongFor(secret), ip)).statusCode);
      }
      expect(statuses.slice(0, 29)).toEqual(Array(29).fill(400));
      expect(statuses.slice(29)).toEqual(Array(3).fill(429));
      // The accounts themselves are not locked: from another address the right code works.
      const { user, secret } = await totpUser();
      const fromIp = await passwordStep(user.email, ip);
      expect((await code(fromIp, totpNow(secret), ip)).statusCode).toBe(429);
      const elsewhere = await passwordStep(user.email, '203.0.113.9');
      expect((await code(elsewhere, totpNow(secret), '203.0.113.9')).statusCode).toBe(200);
      // Nine accounts with TOTP and 35 sign-in steps: 1.2 s on a quiet machine, over the 60 s default
      // once in a CI run beside the other lanes (PGlite).
    }, 240_000);
  },
);

describe('e-mailed links', { timeout: 150_000 }, async () => {
  const smtp = await startSmtpServer();
  afterAll(() => smtp.close());
  const app = await createTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_URL: 'http://rally.localhost:3000' } });
  const acme = await makeClient(app);
  // Delivery goes through the outbox's queue (polled each second, retried with backoff after a
  // failed SMTP attempt): 25 s was not always enough in a loaded CI run.
  const mailTo = (to: string) => waitFor(() => smtp.received.filter((m) => m.to.includes(to)).at(-1), 90_000);
  const linkIn = (raw: string, re: RegExp) =>
    raw
      .replace(/=\r?\n/g, '')
      .replace(/=3D/g, '=')
      .match(re)?.[1];

  it('magic link: mails /?token=, signs in once through self with a bearer token, then is spent', async () => {
    const user = await makeUser(app, { [acme]: 'yellow_sdr' });
    const res = await new Browser(app).post('/v1/api/auth/link', { email: user.email });
    expect(res.statusCode).toBe(202);
    const token = linkIn((await mailTo(user.email)).raw, /http:\/\/rally\.localhost:3000\/\?token=([\w-]+)/);
    expect(token).toBeDefined();
    const b = new Browser(app);
    const self = await b.get('/v1/api/user/self', { headers: { authorization: `Bearer ${token}` } });
    expect(self.statusCode).toBe(200);
    expect(self.json().id).toBe(user.id);
    expect(b.cookies.get('rally_auth_token')).toBeDefined();
    const reuse = await new Browser(app).get('/v1/api/user/self', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(reuse.statusCode).toBe(401);
    expect(reuse.json()).toEqual({ message: 'Invalid link' });
  });

  it('magic link for a user with TOTP on: no session from the link, the code step instead', async () => {
    const { user, browser: owner } = await signedIn(app, { [acme]: 'yellow_sdr' });
    const { secret } = (await owner.post('/v1/api/user/mfa')).json();
    expect((await owner.post('/v1/api/user/mfa/confirm', { code: totpNow(secret) })).statusCode).toBe(200);

    expect((await new Browser(app).post('/v1/api/auth/link', { email: user.email })).statusCode).toBe(202);
    const token = linkIn((await mailTo(user.email)).raw, /\/\?token=([\w-]+)/);
    const b = new Browser(app);
    const self = await b.get('/v1/api/user/self', { headers: { authorization: `Bearer ${token}` } });
    expect(self.statusCode).toBe(401);
    expect(self.json()).toEqual({
      message: 'Enter the code from your authenticator app to finish signing in.',
      mfa: true,
    });
    expect(b.cookies.get('rally_auth_token')).toBeUndefined();
    expect(b.cookies.get('rally_mfa')).toBeDefined();
    expect((await b.get('/v1/api/user/self')).statusCode).toBe(401);
    // The link is spent: opening it again neither signs in nor starts another code step.
    const again = await new Browser(app).get('/v1/api/user/self', {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(again.json()).toEqual({ message: 'Invalid link' });

    expect((await b.post('/v1/api/auth/mfa', { code: '000000' })).statusCode).toBe(400);
    expect(b.cookies.get('rally_auth_token')).toBeUndefined();
    expect((await b.post('/v1/api/auth/mfa', { code: totpNow(secret) })).statusCode).toBe(200);
    const signedInSelf = await b.get('/v1/api/user/self');
    expect(signedInSelf.statusCode).toBe(200);
    expect(signedInSelf.json()).toMatchObject({ id: user.id, mfa_enabled: true });
  });

  it('does not reveal whether an address has an account', async () => {
    const res = await new Browser(app).post('/v1/api/auth/link', { email: 'ghost@example.com' });
    expect(res.statusCode).toBe(202);
    const reset = await new Browser(app).post('/v1/api/user/reset_password', { email: 'ghost@example.com' });
    expect(reset.json()).toEqual(res.json());
    await new Promise((r) => setTimeout(r, 800));
    expect(smtp.received.some((m) => m.to.includes('ghost@example.com'))).toBe(false);
  });

  it('password reset: mails /reset-password?hash=, sets the password, ends every session, and works once', async () => {
    const user = await makeUser(app, { [acme]: 'yellow_sdr' });
    const old = await new Browser(app).signIn(user.email, PASSWORD);
    await new Browser(app).post('/v1/api/user/reset_password', { email: user.email });
    const hash = linkIn((await mailTo(user.email)).raw, /\/reset-password\?hash=([\w-]+)/)!;
    const anon = new Browser(app);
    const weak = await anon.patch('/v1/api/user/reset_password', { hash, password: 'short' });
    expect(weak.statusCode).toBe(422);
    expect(weak.json().errors[0].field).toBe('body.password');
    const ok = await anon.patch('/v1/api/user/reset_password', { hash, password: 'a brand new password' });
    expect(ok.statusCode).toBe(200);
    expect((await old.get('/v1/api/user/self')).statusCode).toBe(401);
    await new Browser(app).signIn(user.email, 'a brand new password');
    expect(
      (await anon.patch('/v1/api/user/reset_password', { hash, password: 'another new password' }))
        .statusCode,
    ).toBe(400);
  });
});

describe('sign-in link and reset requests per IP', async () => {
  const app = await createTestApp();
  const ask = (url: string, email: string, remoteAddress: string) =>
    new Browser(app).request({ method: 'POST', url, payload: { email }, remoteAddress });

  it('20 requests from one IP (any addresses, links and resets together), then 429 with Retry-After', async () => {
    const ip = '198.51.100.20';
    for (let i = 0; i < 20; i++) {
      const url = i % 2 ? '/v1/api/user/reset_password' : '/v1/api/auth/link';
      expect((await ask(url, `someone-${i}@example.com`, ip)).statusCode).toBe(202);
    }
    const refused = await ask('/v1/api/auth/link', 'someone-else@example.com', ip);
    expect(refused.statusCode).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.json().message).toMatch(/Too many attempts/);
    expect((await ask('/v1/api/user/reset_password', 'x@example.com', ip)).statusCode).toBe(429);
    // Another address is not affected.
    expect((await ask('/v1/api/auth/link', 'someone-else@example.com', '203.0.113.20')).statusCode).toBe(202);
  });

  it('answers a known and an unknown address alike, before deciding which it is', async () => {
    const user = await makeUser(app, { [await makeClient(app)]: 'yellow_sdr' });
    const known = await ask('/v1/api/auth/link', user.email, '192.0.2.50');
    const unknown = await ask('/v1/api/auth/link', 'ghost-2@example.com', '192.0.2.50');
    expect(known.statusCode).toBe(202);
    expect(unknown.statusCode).toBe(202);
    expect(known.json()).toEqual(unknown.json());
    expect(Object.keys(known.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
    // The token is made by the job after the reply.
    await waitFor(
      async () => (await app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).length,
    );
  });

  it('replies to a known address without touching the database: the 202 comes while its tables are held', async () => {
    const user = await makeUser(app, { [await makeClient(app)]: 'yellow_sdr' });
    const statuses: (number | null)[] = [];
    // Looking the address up before replying (the timing leak of issue 20.6) would wait for this lock.
    await app.db.transaction(async (tx) => {
      await tx.execute(sql`lock table users, auth_tokens in access exclusive mode`);
      for (const url of ['/v1/api/auth/link', '/v1/api/user/reset_password']) {
        const res = await Promise.race([
          ask(url, user.email, '192.0.2.51'),
          new Promise<null>((r) => setTimeout(() => r(null), 3_000)),
        ]);
        statuses.push(res?.statusCode ?? null);
      }
    });
    expect(statuses).toEqual([202, 202]);
    await waitFor(
      async () => (await app.db.select().from(authTokens).where(eq(authTokens.userId, user.id))).length === 2,
    );
  });
});

describe('self', async () => {
  const app = await createTestApp();

  it('PATCH self changes the name; a new password needs the current one and ends other sessions', async () => {
    const { user, browser } = await signedIn(app, { [await makeClient(app)]: 'yellow_sdr' });
    const other = await new Browser(app).signIn(user.email, PASSWORD);
    const named = await browser.patch('/v1/api/user/self', { first_name: 'Linus' });
    expect(named.json().first_name).toBe('Linus');
    const wrong = await browser.patch('/v1/api/user/self', {
      password: 'new password here',
      current_password: 'wrong',
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.json().errors[0].field).toBe('body.current_password');
    const ok = await browser.patch('/v1/api/user/self', {
      password: 'new password here',
      current_password: PASSWORD,
    });
    expect(ok.statusCode).toBe(200);
    expect((await browser.get('/v1/api/user/self')).statusCode).toBe(200);
    expect((await other.get('/v1/api/user/self')).statusCode).toBe(401);
    const empty = await browser.patch('/v1/api/user/self', {});
    expect(empty.statusCode).toBe(422);
  });
});

describe('Idempotency-Key on writes', async () => {
  const app = await createTestApp();
  const agency = await makeClient(app, 'Agency');

  it('applies a POST once and replays its reply for a retry with the same key', async () => {
    const { browser } = await signedIn(app, { [agency]: 'purple_owner' });
    const headers = { 'idempotency-key': 'create-client-0001' };
    const first = await browser.post('/v1/rest/client', { name: 'Initech' }, { headers });
    expect(first.statusCode).toBe(201);
    const retry = await browser.post('/v1/rest/client', { name: 'Initech' }, { headers });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toEqual(first.json());
    expect(await app.db.select().from(clients).where(eq(clients.name, 'Initech'))).toHaveLength(1);
    const other = await browser.post('/v1/rest/client', { name: 'Other' }, { headers });
    expect(other.statusCode).toBe(422);
    expect(other.json().errors[0].field).toBe('headers.idempotency-key');
    const badKey = await browser.post(
      '/v1/rest/client',
      { name: 'Other' },
      { headers: { 'idempotency-key': 'x' } },
    );
    expect(badKey.statusCode).toBe(422);
    const rows = await app.db.select().from(memberships).where(eq(memberships.clientId, first.json().id));
    expect(rows).toHaveLength(1);
  });
});
