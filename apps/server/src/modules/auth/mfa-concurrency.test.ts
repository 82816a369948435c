import { Secret, TOTP } from 'otpauth';
import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { authFailures, users } from '../../db/schema/index.ts';
import { createTestApp, TEST_DATABASE_URL } from '../../../test/helpers.ts';
import { Browser, makeClient, PASSWORD, signedIn } from '../../../test/http.ts';

const totpNow = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
const wrongFor = (secret: string) => (totpNow(secret) === '000000' ? '111111' : '000000');
const count = (statuses: number[], status: number) => statuses.filter((s) => s === status).length;

// Issue 37 item 3: the code step checked the lock, then the code, then counted the failure, so a burst
// of guesses all saw "not locked yet": 50 and 100 wrong codes were all checked against a limit of 10,
// and with 45 wrong codes and the right one last the right one got 200.
describe('second-factor guesses sent at once are counted before they are checked', async () => {
  // A generous per-sign-in limit, so one sign-in can carry the whole burst and only the account's
  // count (MFA_MAX_FAILURES, 10) stands in the way.
  const app = await createTestApp({ env: { LOGIN_MAX_ATTEMPTS: '1000' } });
  const acme = await makeClient(app);
  let ipCounter = 0;
  /** A user with TOTP on, and an address of its own (the per-IP count is 30). */
  const totpUser = async () => {
    const { user, browser } = await signedIn(app, { [acme]: 'yellow_sdr' });
    const { secret } = (await browser.post('/v1/api/user/mfa')).json();
    await browser.post('/v1/api/user/mfa/confirm', { code: totpNow(secret) });
    return { user, secret, browser, ip: `192.0.2.${++ipCounter}` };
  };
  const passwordStep = async (email: string, remoteAddress: string) => {
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
  const code = (b: Browser, c: string, remoteAddress: string) =>
    b.request({ method: 'POST', url: '/v1/api/auth/mfa', payload: { code: c }, remoteAddress });
  const burst = async (b: Browser, codes: string[], ip: string) =>
    Promise.all(codes.map(async (c) => (await code(b, c, ip)).statusCode));
  const counter = async (scope: 'mfa-account' | 'mfa-ip', key: string) =>
    (
      await app.db
        .select()
        .from(authFailures)
        .where(and(eq(authFailures.scope, scope), eq(authFailures.key, key)))
    )[0];
  const lockedUntil = async (userId: string) => (await counter('mfa-account', userId))?.lockedUntil;

  for (const n of [50, 100])
    it(`${n} wrong codes at once: at most 10 are checked, the rest get 429`, async () => {
      const { user, secret, ip } = await totpUser();
      const b = await passwordStep(user.email, ip);
      const statuses = await burst(b, Array(n).fill(wrongFor(secret)), ip);
      // The 10th wrong code locks (429), so at most 9 answer "not valid".
      expect(count(statuses, 400)).toBeLessThanOrEqual(9);
      expect(count(statuses, 429)).toBe(n - count(statuses, 400));
      expect((await lockedUntil(user.id))!.getTime()).toBeGreaterThan(Date.now());
      // Codes looked at are counted; the account's count stops at the limit (plus at most the one
      // attempt that found it reached). Before, every code was looked at and counted: 50, 100.
      expect((await counter('mfa-account', user.id))!.failures).toBeLessThanOrEqual(11);
      // Refused codes do not count against the address either (its limit is 30): another user signs
      // in from it with the right code. Before, the burst had counted n there and locked it.
      expect((await counter('mfa-ip', ip))!.failures).toBeLessThanOrEqual(11);
      const other = await totpUser();
      const b2 = await passwordStep(other.user.email, ip);
      expect((await code(b2, totpNow(other.secret), ip)).statusCode).toBe(200);
    });

  it('45 wrong codes and the right one last, all at once: the right one is refused too', async () => {
    const { user, secret, ip } = await totpUser();
    const b = await passwordStep(user.email, ip);
    const statuses = await burst(b, [...Array(45).fill(wrongFor(secret)), totpNow(secret)], ip);
    expect(statuses.at(-1)).toBe(429);
    expect(count(statuses, 200)).toBe(0);
    expect(b.cookies.get('rally_auth_token')).toBeUndefined();
    expect((await b.get('/v1/api/user/self')).statusCode).toBe(401);
  });

  it('turning MFA off: 50 wrong codes at once, at most 10 checked; then the right code is refused and MFA stays on', async () => {
    const { user, secret, browser, ip } = await totpUser();
    const off = (c: string) =>
      browser.request({ method: 'DELETE', url: '/v1/api/user/mfa', payload: { code: c }, remoteAddress: ip });
    const statuses = await Promise.all(
      [...Array(50).fill(wrongFor(secret)), totpNow(secret)].map(async (c) => (await off(c)).statusCode),
    );
    expect(count(statuses, 422)).toBeLessThanOrEqual(9);
    expect(count(statuses, 429)).toBe(51 - count(statuses, 422));
    expect((await off(totpNow(secret))).statusCode).toBe(429);
    const [row] = await app.db.select().from(users).where(eq(users.id, user.id));
    expect(row?.mfaSecretEnc).not.toBeNull();
  });

  it.skipIf(!TEST_DATABASE_URL)(
    'two instances on one database (PostgreSQL): 60 wrong codes split between them and the right one last, at most 10 checked',
    async () => {
      const other = await createTestApp({
        env: { DATABASE_URL: app.config.databaseUrl, LOGIN_MAX_ATTEMPTS: '1000' },
      });
      const { user, secret, ip } = await totpUser();
      const b = await passwordStep(user.email, ip);
      // The same sign-in (its cookie) presented to the other instance too.
      const b2 = new Browser(other);
      for (const [k, v] of b.cookies) b2.cookies.set(k, v);
      await b2.get('/v1/api/auth/csrf');
      const wrong = wrongFor(secret);
      const statuses = await Promise.all(
        [
          ...Array.from({ length: 60 }, (_, i) => code(i % 2 ? b2 : b, wrong, ip)),
          code(b2, totpNow(secret), ip),
        ].map(async (r) => (await r).statusCode),
      );
      expect(count(statuses, 400)).toBeLessThanOrEqual(9);
      expect(statuses.at(-1)).toBe(429);
      expect((await counter('mfa-account', user.id))!.failures).toBeLessThanOrEqual(11);
    },
  );

  it('a right code gives its attempt back: twelve sign-ins with the right code are not locked', async () => {
    const { user, secret, ip } = await totpUser();
    for (let i = 0; i < 12; i++) {
      const b = await passwordStep(user.email, ip);
      expect((await code(b, totpNow(secret), ip)).statusCode).toBe(200);
    }
    expect(await lockedUntil(user.id)).toBeUndefined();
  });
});

describe('a right password does not reset the sign-in limit while the code is missing', async () => {
  const app = await createTestApp();
  const acme = await makeClient(app);

  it('six right passwords for a TOTP user without the code: the sixth gets 429; a right code resets the limit', async () => {
    const { user, browser } = await signedIn(app, { [acme]: 'yellow_sdr' });
    const { secret } = (await browser.post('/v1/api/user/mfa')).json();
    await browser.post('/v1/api/user/mfa/confirm', { code: totpNow(secret) });
    const steps: Browser[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const b = new Browser(app);
      statuses.push((await b.post('/v1/api/auth', { email: user.email, password: PASSWORD })).statusCode);
      steps.push(b);
    }
    // Before: 6 × 200, each with five more code guesses.
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await steps[0]!.post('/v1/api/auth/mfa', { code: totpNow(secret) })).statusCode).toBe(200);
    const again = new Browser(app);
    expect((await again.post('/v1/api/auth', { email: user.email, password: PASSWORD })).json()).toEqual({
      mfa: true,
    });
  });
});
