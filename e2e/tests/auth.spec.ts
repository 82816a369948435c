import { Secret, TOTP } from 'otpauth';
import type { Mail } from '../global-setup.ts';
import { expect, test } from './fixtures.ts';
import {
  CLIENTS,
  DEMO,
  SAM,
  api,
  expectSignedIn,
  linkFromMail,
  registerViaApi,
  SIGN_UP_LINK,
  setTxtRecord,
  signInUI,
  unique,
} from './support.ts';
import { shot } from './shots.ts';

const totp = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

test.describe('sign-in methods (issue 4)', () => {
  test('credentials: sign in, the header shows the name, Log out ends the session', async ({ page }) => {
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    // The demo's default client has its demo file import: "/" → /feed with its client_id.
    await expect(page).toHaveURL(new RegExp(`/feed\\?client_id=${CLIENTS.agency}$`));
    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login$/);
    await page.goto('/feed');
    await expect(page).toHaveURL(/\/login$/);
  });

  test('"After login the user returns to the stored redirect path, with its client id as client_id"', async ({
    page,
  }) => {
    await page.goto(`/cadence?client_id=${CLIENTS.acme}`);
    await expect(page).toHaveURL(/\/login$/);
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    // Back on /cadence, in the target's client (Acme has the demo import, so no onboarding detour).
    await expect(page).toHaveURL(new RegExp(`/cadence\\?client_id=${CLIENTS.acme}$`));
    await expect(page.getByRole('button', { name: 'Switch client' })).toContainText('Acme Robotics');
  });

  test('a wrong password is refused with the same message as an unknown user', async ({ page }) => {
    await signInUI(page, DEMO.email, 'not the password');
    await expect(page.getByRole('alert')).toHaveText('Invalid email or password.');
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await expect(page.getByRole('alert')).toHaveText('Invalid email or password.');
  });

  test('credentials + TOTP: the MFA step asks for the code computed from the secret', async ({ page }) => {
    const user = await registerViaApi(page.request, unique('mfa'));
    const enrol = await (await api(page.request, 'POST', '/v1/api/user/mfa')).json();
    expect(
      (await api(page.request, 'POST', '/v1/api/user/mfa/confirm', { code: totp(enrol.secret) })).status(),
    ).toBe(200);
    await page.context().clearCookies();

    await signInUI(page, user.email, user.password);
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
    await page.getByLabel('Authentication code').first().click();
    await page.keyboard.type(totp(enrol.secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expectSignedIn(page, 'Eve Tester');
  });

  test('magic link: "Email me a sign-in link", the link signs in once, then is an "Invalid link"', async ({
    page,
    browser,
  }) => {
    const user = await registerViaApi(page.request, unique('link'));
    await page.context().clearCookies();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect(page.getByRole('status')).toContainText('Check your inbox');

    const link = await linkFromMail(user.email, /http:\/\/localhost:\d+\/\?token=[\w-]+/);
    await page.goto(link);
    await expectSignedIn(page, 'Eve Tester');
    await expect(page).not.toHaveURL(/token=/);

    const other = await browser.newPage();
    await other.goto(link);
    await expect(other.getByRole('heading', { name: 'An error occurred' })).toBeVisible();
    await expect(other.getByText('Invalid link')).toBeVisible();
    await other.close();
  });

  test('magic link + TOTP: the link leads to the code step, not into the app', async ({ page }) => {
    const user = await registerViaApi(page.request, unique('linkmfa'));
    const enrol = await (await api(page.request, 'POST', '/v1/api/user/mfa')).json();
    expect(
      (await api(page.request, 'POST', '/v1/api/user/mfa/confirm', { code: totp(enrol.secret) })).status(),
    ).toBe(200);
    await page.context().clearCookies();
    await page.goto('/login');
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Email me a sign-in link' }).click();
    await expect(page.getByRole('status')).toContainText('Check your inbox');

    const link = await linkFromMail(user.email, /http:\/\/localhost:\d+\/\?token=[\w-]+/);
    await page.goto(link);
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
    await expect(page).not.toHaveURL(/token=/);
    expect((await page.request.get('/v1/api/user/self')).status()).toBe(401);
    await page.getByLabel('Authentication code').first().click();
    await page.keyboard.type(totp(enrol.secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expectSignedIn(page, 'Eve Tester');
  });

  test('Continue with Google signs in through the identity provider', async ({ page }) => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Continue with Google' }).click();
    await expectSignedIn(page, DEMO.name);
    await expect(page).toHaveURL(/client_id=/);
  });

  test('Continue with Microsoft signs in through the identity provider', async ({ page }) => {
    await page.goto('/login');
    await page.getByRole('link', { name: 'Continue with Microsoft' }).click();
    await expectSignedIn(page, SAM.name);
  });

  test('a failed provider sign-in returns to /login with a readable reason', async ({ page }) => {
    await page.goto('/auth/callback?error=no_account');
    await expect(page).toHaveURL(/\/login\?error=no_account$/);
    await expect(page.getByRole('alert')).toContainText('There is no account for that address');
  });

  test('SSO by username: an owner verifies the domain, sets up the client IdP, then signs in through it', async ({
    page,
  }) => {
    test.slow();
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    // A retry starts from scratch: no rally.test domain, single sign-on off (so turning it on mails).
    const existing = await api(
      page.request,
      'GET',
      `/v1/rest/client/${CLIENTS.agency}/domains`,
      undefined,
      CLIENTS.agency,
    );
    for (const d of ((await existing.json()) as { domains: { id: string; domain: string }[] }).domains) {
      if (d.domain !== 'rally.test') continue;
      await api(
        page.request,
        'DELETE',
        `/v1/rest/client/${CLIENTS.agency}/domains/${d.id}`,
        undefined,
        CLIENTS.agency,
      );
    }
    await setTxtRecord('_rally.rally.test', []);
    const before = await api(
      page.request,
      'GET',
      `/v1/rest/client/${CLIENTS.agency}/sso`,
      undefined,
      CLIENTS.agency,
    );
    if (before.status() === 200 && ((await before.json()) as { enabled: boolean }).enabled) {
      const off = await api(
        page.request,
        'PUT',
        `/v1/rest/client/${CLIENTS.agency}/sso`,
        { ...((await before.json()) as object), enabled: false },
        CLIENTS.agency,
      );
      expect(off.status(), await off.text()).toBe(200);
    }

    await page.goto(`/settings/domain?client_id=${CLIENTS.agency}`);
    const domains = page.getByRole('region', { name: 'Verified domains' });
    await domains.getByRole('textbox', { name: 'Domain to verify' }).fill('rally.test');
    await domains.getByRole('button', { name: 'Add', exact: true }).click();
    const card = domains.getByRole('article', { name: 'rally.test' });
    await expect(card.getByText('Not verified', { exact: true })).toBeVisible();
    // The record the owner is told to create, as shown (each with its copy button).
    const record = card.getByRole('table', { name: 'TXT record for rally.test' });
    await expect(record.getByRole('button', { name: 'Copy the record value for rally.test' })).toBeVisible();
    const [name, value] = await record.locator('code').allInnerTexts();
    expect(name).toBe('_rally.rally.test');
    expect(value).toMatch(/^rally-verification=[0-9a-f]{32}$/);

    // Verify now before the record exists says what it found; after it is created, verifies.
    await card.getByRole('button', { name: 'Verify now' }).click();
    await expect(card.getByRole('status')).toContainText('No TXT record at _rally.rally.test yet');
    await setTxtRecord(name!, [value!]);
    await card.getByRole('button', { name: 'Verify now' }).click();
    await expect(card.getByText('Verified', { exact: true })).toBeVisible();
    await expect(card.getByRole('status')).toContainText('rally.test is verified');

    // Single sign-on, set up in its panel: it speaks for the verified domain.
    const sso = page.getByRole('region', { name: 'Single sign-on' });
    await expect(sso.getByText('No verified domain yet')).toHaveCount(0);
    await sso.getByRole('textbox', { name: 'Issuer URL' }).fill(process.env.E2E_SSO_ISSUER!);
    await sso.getByRole('textbox', { name: 'Client ID' }).fill(process.env.E2E_SSO_CLIENT_ID!);
    await sso.getByLabel('Client secret').fill(process.env.E2E_SSO_CLIENT_SECRET!);
    await sso.getByRole('switch', { name: 'Turn on single sign-on' }).check();
    await sso.getByRole('button', { name: 'Save single sign-on' }).click();
    await expect(page.getByText('Single sign-on is on.')).toBeVisible();
    // Every member is told by e-mail.
    await expect
      .poll(async () => {
        const mails = (await (await fetch(`${process.env.E2E_MAILBOX_URL}/`)).json()) as Mail[];
        return mails.some(
          (m) => m.to.includes(DEMO.email) && m.subject.startsWith('Single sign-on was turned on'),
        );
      })
      .toBe(true);

    await page.getByRole('button', { name: 'Account menu' }).click();
    await page.getByRole('menuitem', { name: 'Log out' }).click();
    await expect(page).toHaveURL(/\/login$/);

    await page.getByRole('button', { name: 'Single sign-on' }).click();
    await page.getByLabel('Work email').fill(DEMO.email);
    await page.getByRole('button', { name: 'Continue with SSO' }).click();
    await expectSignedIn(page, DEMO.name);
  });

  test('invitation accept: the invited address sets a password and joins the client with its role', async ({
    page,
    browser,
  }) => {
    await signInUI(page, DEMO.email, DEMO.password);
    await expectSignedIn(page, DEMO.name);
    const invitee = unique('invitee');
    const invite = await api(
      page.request,
      'POST',
      '/v1/rest/user_request',
      { email: invitee, role: 'yellow_sdr' },
      CLIENTS.acme,
    );
    expect(invite.status(), await invite.text()).toBe(201);

    const link = await linkFromMail(invitee, /http:\/\/localhost:\d+\/signup\?hash=[\w-]+/);
    const guest = await browser.newPage();
    await guest.goto(link);
    await expect(guest.getByRole('heading', { name: 'Join Acme Robotics' })).toBeVisible();
    await expect(guest.getByText('sdr', { exact: true })).toBeVisible();
    await guest.getByLabel('First name').fill('Ivy');
    await guest.getByLabel('Last name').fill('Invited');
    await guest.getByLabel('Password', { exact: true }).fill('a long enough password');
    await guest.getByRole('button', { name: 'Accept invitation' }).click();
    await expectSignedIn(guest, 'Ivy Invited');
    await expect(guest).toHaveURL(new RegExp(`client_id=${CLIENTS.acme}`));
    await guest.close();
  });

  test('reset password: the e-mailed link sets a new password that then signs in', async ({ page }) => {
    const user = await registerViaApi(page.request, unique('reset'));
    await page.context().clearCookies();
    await page.goto('/login');
    await page.getByRole('link', { name: 'Forgot password?' }).click();
    // The reset screen is its own chunk: wait for it, or the login form's Email field gets the text.
    await expect(page.getByRole('heading', { name: 'Reset your password' })).toBeVisible();
    await page.getByLabel('Email').fill(user.email);
    await page.getByRole('button', { name: 'Send reset link' }).click();
    await expect(page.getByRole('status')).toContainText('an e-mail is on its way');

    const link = await linkFromMail(user.email, /http:\/\/localhost:\d+\/reset-password\?hash=[\w-]+/);
    await page.goto(link);
    await page.getByLabel('New password', { exact: true }).fill('my brand new password');
    await page.getByLabel('Repeat the new password').fill('my brand new password');
    await page.getByRole('button', { name: 'Set password' }).click();
    await expect(page.getByRole('status')).toContainText('Your password has been changed');
    await page.getByRole('link', { name: 'Sign in' }).click();
    await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
    await signInUI(page, user.email, 'my brand new password');
    await expectSignedIn(page, 'Eve Tester');
  });

  test('/register answers a known and a new address alike; the e-mailed link creates the account and signs in', async ({
    page,
    browser,
  }) => {
    // An address that has an account: the same "Check your e-mail" screen, and its owner is told.
    await page.goto('/register');
    await page.getByLabel('First name').fill('Mal');
    await page.getByLabel('Last name').fill('Lory');
    await page.getByLabel('Work email').fill(SAM.email);
    await page.getByLabel('Company').fill('Probe Co');
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Sign Up' }).click();
    await expect(page.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
    const knownText = await page.getByRole('status').innerText();
    await shot(page, 'register-check-email');
    await expect
      .poll(async () => {
        const mails = (await (await fetch(`${process.env.E2E_MAILBOX_URL}/`)).json()) as Mail[];
        return mails.some(
          (m) => m.to.includes(SAM.email) && m.subject.startsWith('Someone tried to sign up'),
        );
      })
      .toBe(true);

    // A new address: the same screen; its link finishes the sign-up with the chosen password.
    const email = unique('register');
    const guest = await browser.newPage();
    await guest.goto('/register');
    await guest.getByLabel('First name').fill('Nora');
    await guest.getByLabel('Last name').fill('New');
    await guest.getByLabel('Work email').fill(email);
    await guest.getByLabel('Company').fill('Nora Corp');
    await guest.getByLabel('Password', { exact: true }).fill('a long enough password');
    await guest.getByRole('button', { name: 'Sign Up' }).click();
    await expect(guest.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
    expect(await guest.getByRole('status').innerText()).toBe(knownText.replace(SAM.email, email));
    await guest.goto(await linkFromMail(email, SIGN_UP_LINK));
    await expect(guest.getByRole('heading', { name: 'Finish creating your account' })).toBeVisible();
    await shot(guest, 'register-finish');
    await guest.getByLabel('Password', { exact: true }).fill('a long enough password');
    await guest.getByRole('button', { name: 'Create my account' }).click();
    await expectSignedIn(guest, 'Nora New');
    await expect(guest).toHaveURL(/\/onboarding\?client_id=/);

    // The link works once.
    const link = await linkFromMail(email, SIGN_UP_LINK);
    await page.goto(link);
    await page.getByLabel('Password', { exact: true }).fill('a long enough password');
    await page.getByRole('button', { name: 'Create my account' }).click();
    await expect(
      page.getByText('This sign-up link is invalid, has expired or was already used'),
    ).toBeVisible();
    await shot(page, 'register-link-used');
    await guest.close();
  });
});
