import type { Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { expect, test, stretch } from './fixtures.ts';
import { CLIENTS, SAM as SAM_USER, signInTo, signUpUI } from './support.ts';
import { shot } from './shots.ts';

/**
 * Profile, two-step verification, users and clients screens, as a user. Tests run in parallel on
 * one shared database: profile and MFA changes happen on freshly registered users, never on the
 * demo accounts, and every e-mail address and client name is unique.
 */

const DEMO = { email: 'demo@rally.test', password: 'rally-demo-2026' };
const SAM = { email: 'sam@rally.test', password: 'rally-demo-2026' };
const PASSWORD = 'e2e-password-2026';

let serial = 0;
const unique = (what: string) => `${what}-${Date.now()}-${process.pid}-${serial++}`;

async function signIn(page: Page, email: string, password: string) {
  await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Signs up through /register and its e-mailed link: a new user who owns a new company. */
async function register(page: Page, company = unique('Company')) {
  const email = `${unique('e2e')}@example.com`;
  await signUpUI(page, { first: 'Robin', last: 'Tester', email, company, password: PASSWORD });
  // A new company has no integration yet.
  await expect(page).toHaveURL(/\/onboarding\?client_id=/);
  return { email, company };
}

const totp = (secret: string) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();

/**
 * Types a code into the six boxes of a PIN input (focus moves from box to box). The profile's boxes
 * are 'Digit 1 of 6'… in a group named 'Authentication code'; the sign-in screen names each box
 * 'Authentication code'.
 */
async function typeCode(page: Page, code: string) {
  await page
    .getByRole('textbox', { name: /^(Digit 1 of 6|Authentication code)$/ })
    .first()
    .click();
  await page.keyboard.type(code);
}

async function logOut(page: Page) {
  await page.getByRole('button', { name: 'Account menu' }).click();
  await page.getByRole('menuitem', { name: 'Log out' }).click();
  await expect(page).toHaveURL(/\/login/);
}

test.describe('settings: profile', () => {
  test('a user changes their name and the header shows it', async ({ page }) => {
    await register(page);
    await page.goto('/settings/profile');
    await expect(page).toHaveURL(/\/settings\/profile\?client_id=/);
    await expect(page).toHaveTitle('Rally - Profile');

    const profile = page.getByRole('region', { name: 'Profile' });
    await expect(profile.getByLabel('First name')).toHaveValue('Robin');
    await profile.getByLabel('First name').fill('Alex');
    await profile.getByLabel('Last name').fill('Morgan');
    await profile.getByRole('button', { name: 'Save' }).click();

    await expect(page.getByText('Your profile has been saved.')).toBeVisible();
    await expect(page.getByRole('button', { name: 'Account menu' })).toContainText('Alex Morgan');
    await page.reload();
    await expect(profile.getByLabel('Last name')).toHaveValue('Morgan');
  });

  test('two-step verification: turn on, sign in with a code, turn off', async ({ page }) => {
    const { email } = await register(page);
    await page.goto('/settings/profile');
    const card = page.getByRole('region', { name: 'Two-step verification' });
    await expect(card.getByText('Off', { exact: true })).toBeVisible();
    await card.getByRole('button', { name: 'Turn on' }).click();

    await expect(card.getByAltText('QR code for your authenticator app')).toBeVisible();
    const secret = (await card.getByTestId('mfa-secret').textContent())?.trim() ?? '';
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await typeCode(page, totp(secret));
    await card.getByRole('button', { name: 'Confirm' }).click();

    const codes = card.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
    await expect(codes).toHaveCount(10);
    await expect(codes.first()).toHaveText(/^[a-z0-9]{5}-[a-z0-9]{5}$/);
    await expect(card.getByRole('button', { name: 'Copy codes' })).toBeVisible();
    await card.getByRole('button', { name: 'I have saved them' }).click();
    await expect(card.getByText('On', { exact: true })).toBeVisible();
    await expect(card.getByRole('button', { name: 'Turn off' })).toBeVisible();

    // Sign-in now asks for a code.
    await logOut(page);
    await signIn(page, email, PASSWORD);
    await expect(page.getByRole('heading', { name: 'Two-step verification' })).toBeVisible();
    await typeCode(page, totp(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await expect(page.getByRole('button', { name: 'Account menu' })).toContainText('Robin Tester');

    await page.goto('/settings/profile');
    await card.getByRole('button', { name: 'Turn off' }).click();
    await typeCode(page, totp(secret));
    await card.getByRole('button', { name: 'Turn off two-step verification' }).click();
    await expect(page.getByText('Two-step verification is off.')).toBeVisible();
    await expect(card.getByRole('button', { name: 'Turn on' })).toBeVisible();

    // And sign-in no longer asks.
    await logOut(page);
    await signIn(page, email, PASSWORD);
    await expect(page.getByRole('button', { name: 'Account menu' })).toContainText('Robin Tester');
  });
});

test.describe('settings: users', () => {
  test('an owner sees the members, invites someone, resends and revokes the invitation', async ({ page }) => {
    const { email, company } = await register(page);
    await page.goto('/settings/users');
    await expect(page).toHaveURL(/\/settings\/users\?client_id=/);
    await expect(page.getByRole('heading', { name: 'Users', level: 1 })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'Members' })).toHaveAttribute('aria-selected', 'true');

    const me = page.getByRole('table', { name: 'Members' }).getByRole('row', { name: /Robin Tester/ });
    await expect(me).toContainText(email);
    await expect(me.getByText('owner', { exact: true })).toBeVisible();
    // The only owner can neither leave the role nor be removed.
    await expect(me.getByRole('combobox', { name: 'Role of Robin Tester' })).toHaveValue('Owner');
    await expect(me.getByRole('combobox', { name: 'Role of Robin Tester' })).toBeDisabled();
    await expect(me.getByRole('button', { name: 'Remove Robin Tester' })).toBeDisabled();

    await page.getByRole('tab', { name: 'Pending invitations' }).click();
    await expect(page).toHaveURL(/\/settings\/users\/pending\?client_id=/);
    await expect(page.getByText('No pending invitations')).toBeVisible();

    const invitee = `${unique('invitee')}@example.com`;
    const form = page.getByRole('region', { name: 'Invite someone' });
    await expect(form).toContainText(company);
    await form.getByLabel('Email').fill(invitee);
    await form.getByRole('combobox', { name: 'Role' }).click();
    await page.getByRole('option', { name: /Manager/ }).click();
    await form.getByRole('button', { name: 'Send invitation' }).click();
    await expect(page.getByText(`Invitation sent to ${invitee}.`)).toBeVisible();

    const row = page.getByRole('table', { name: 'Pending invitations' }).getByRole('row', { name: invitee });
    await expect(row.getByText('manager', { exact: true })).toBeVisible();
    await expect(row).toContainText(/in 7 days|in 6 days/);

    await row.getByRole('button', { name: /^Resend/ }).click();
    await expect(page.getByText(`Invitation resent to ${invitee}.`)).toBeVisible();
    await expect(row).toHaveCount(1);

    await row.getByRole('button', { name: /^Revoke/ }).click();
    await expect(page.getByText(`The invitation to ${invitee} was revoked.`)).toBeVisible();
    await expect(row).toHaveCount(0);
    await expect(page.getByText('No pending invitations')).toBeVisible();

    // The Members tab, back by path, keeps the client.
    await page.getByRole('tab', { name: 'Members' }).click();
    await expect(page).toHaveURL(/\/settings\/users\?client_id=/);
  });
});

test.describe('clients', () => {
  test('demo sees their three clients with roles, creates one, and switches to it', async ({ page }) => {
    await signIn(page, DEMO.email, DEMO.password);
    await expect(page).toHaveURL(/\/feed\?client_id=/);
    await page.goto('/clients');
    await expect(page).toHaveURL(/\/clients\?client_id=/);
    await expect(page).toHaveTitle('Rally - Clients');

    const table = page.getByRole('table', { name: 'Your clients' });
    // Child clients say 'Part of Northwind Agency', so a row is found by its exact name.
    const row = (name: string) =>
      table.getByRole('row').filter({ has: page.getByText(name, { exact: true }) });
    const northwind = row('Northwind Agency');
    await expect(northwind).toHaveAttribute('aria-current', 'true');
    await expect(northwind.getByText('owner', { exact: true })).toBeVisible();
    await expect(row('Acme Robotics').getByText('owner', { exact: true })).toBeVisible();
    await expect(row('Globex Logistics').getByText('manager', { exact: true })).toBeVisible();

    const name = unique('Initech');
    const form = page.getByRole('region', { name: 'New client' });
    await form.getByLabel('Client name').fill(name);
    await form.getByRole('button', { name: 'Create client' }).click();
    // Made under the top of the current tree (issue 42 item 13: the parent is explicit).
    await expect(
      page.getByText(`${name} was created under Northwind Agency. You are its owner.`),
    ).toBeVisible();
    const created = row(name);
    await expect(created).toContainText('Part of Northwind Agency');
    await expect(created.getByText('owner', { exact: true })).toBeVisible();

    await created.getByRole('button', { name: `Switch to ${name}` }).click();
    // The new client has no integration: /feed sends it on to /onboarding, in the new client.
    await expect(page).toHaveURL(/\/onboarding\?client_id=/);
    await expect(page.getByRole('button', { name: 'Switch client' })).toContainText(name);
  });

  test('Switch changes the header client', async ({ page }) => {
    await signIn(page, DEMO.email, DEMO.password);
    await expect(page).toHaveURL(/\/feed\?client_id=/);
    await page.goto('/clients');
    const switcher = page.getByRole('button', { name: 'Switch client' });
    await expect(switcher).toContainText('Northwind Agency');
    await page.getByRole('button', { name: 'Switch to Globex Logistics' }).click();
    await expect(switcher).toContainText('Globex Logistics');
    // A manager in Globex, the agency's owner keeps the Clients link (issue 42 item 13).
    await expect(page.getByRole('link', { name: 'Clients' })).toHaveCount(1);
  });

  test('an SDR without client.read gets the error page', async ({ page }) => {
    await signIn(page, SAM.email, SAM.password);
    await expect(page).toHaveURL(/\/feed\?client_id=/);
    await page.goto('/clients');
    await expect(page.getByRole('heading', { name: 'An error occurred' })).toBeVisible();
    await expect(page.locator('main')).toContainText('does not have permission to see the clients');
  });
});

test.describe('client settings: notifications (issue 17)', () => {
  test('the owner turns on a rep superprospect e-mail and a weekly digest; it is kept after a reload', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await signInTo(page, `/client-settings/notifications?client_id=${CLIENTS.acme}`);
    await expect(page.getByRole('heading', { name: 'Notifications', level: 1 })).toBeVisible();
    const table = page.getByRole('table', { name: 'Notifications per sales rep' });
    const row = table.locator('tbody tr').first();
    await expect(row).toBeVisible({ timeout: stretch(20_000) });
    const name = (await row.locator('td').first().locator('p').first().innerText()).trim();
    const toggle = page.getByRole('switch', { name: `E-mail ${name} about new superprospects` });
    const was = await toggle.isChecked();
    await toggle.click({ force: true });
    await page.locator(`input[aria-label="Digest for ${name}"]`).click();
    await page.getByRole('option', { name: 'Weekly' }).click();
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await expect(page.getByText('Notifications saved.')).toBeVisible();
    await page.mouse.move(0, 0);
    await shot(page, 'client-settings-notifications', { fullPage: true });

    await page.reload();
    const again = page.getByRole('switch', { name: `E-mail ${name} about new superprospects` });
    await expect(again).toBeChecked({ checked: !was, timeout: stretch(20_000) });
    await expect(page.locator(`input[aria-label="Digest for ${name}"]`)).toHaveValue('Weekly');
    // Back as it was, for the other tests on the shared demo.
    await again.click({ force: true });
    await page.locator(`input[aria-label="Digest for ${name}"]`).click();
    await page.getByRole('option', { name: 'Off' }).click();
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await expect(page.getByText('Notifications saved.').first()).toBeVisible();
  });
});

/** E2E_SHOTS_DIR saves the screenshots a person would look at (issue 42). */
const SHOTS = process.env.E2E_SHOTS_DIR;

test.describe('settings navigation (issue 42 item 2)', () => {
  test('the owner’s cog opens Billing; the side navigation reaches every settings page, keeping the client', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 1280, height: 900 });
    await signInTo(page, `/feed?client_id=${CLIENTS.acme}`);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(new RegExp(`/settings/billing\\?client_id=${CLIENTS.acme}`));
    const nav = page.getByRole('navigation', { name: 'Settings' });
    await expect(nav.getByRole('link', { name: 'Billing' })).toHaveAttribute('aria-current', 'page');
    for (const group of ['Workspace', 'Client', 'Integrations'])
      await expect(nav.getByRole('group', { name: group })).toBeVisible();
    await shot(page, 'settings-billing-desktop', { fullPage: true });

    const pages: [string, RegExp, string][] = [
      ['Profile', /\/settings\/profile/, 'Profile'],
      ['Users', /\/settings\/users/, 'Users'],
      ['Brand & website', /\/client-settings\/website/, 'Brand & website'],
      ['Facebook', /\/client-settings\/facebook/, 'Facebook'],
      ['Sales reps', /\/client-settings\/sales-reps/, 'Sales reps'],
      ['Notifications', /\/client-settings\/notifications/, 'Notifications'],
      ['Domains & sign-in', /\/settings\/domain/, 'Domains'],
      ['Webhooks', /\/settings\/integrations\/webhooks/, 'Webhooks'],
      ['Connections', /\/settings\/connections/, 'Connections'],
    ];
    for (const [link, url, heading] of pages) {
      await nav.getByRole('link', { name: link }).click();
      await expect(page).toHaveURL(url);
      expect(new URL(page.url()).searchParams.get('client_id')).toBe(CLIENTS.acme);
      await expect(page.getByRole('heading', { level: 1 }).first()).toContainText(heading);
      await expect(nav.getByRole('link', { name: link })).toHaveAttribute('aria-current', 'page');
    }
    await shot(page, 'settings-connections-desktop', { fullPage: true });

    // The header search finds a settings page by name.
    await page.getByRole('button', { name: 'Search' }).click();
    const dialog = page.getByRole('dialog', { name: 'Search' });
    await dialog.getByRole('combobox').fill('domains');
    await dialog.getByRole('option', { name: /Domains & sign-in/ }).click();
    await expect(page).toHaveURL(/\/settings\/domain\?client_id=/);
  });

  test('an SDR’s cog opens Connections, with no Billing or Users offered; on a phone the navigation is a menu', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await page.setViewportSize({ width: 390, height: 844 });
    await signInTo(page, '/', SAM_USER);
    await page.getByRole('link', { name: 'Settings' }).click();
    await expect(page).toHaveURL(/\/settings\/connections\?client_id=/);
    // The side navigation is hidden on a phone; a menu above the page names where the user is.
    await expect(page.getByRole('navigation', { name: 'Settings' })).toBeHidden();
    const menu = page.getByRole('button', { name: 'Settings: Connections' });
    await expect(menu).toBeVisible();
    await shot(page, 'settings-connections-phone', { fullPage: true });
    await menu.click();
    await expect(page.getByRole('menuitem', { name: 'Profile' })).toBeVisible();
    await expect(page.getByRole('menuitem', { name: 'Billing' })).toHaveCount(0);
    await expect(page.getByRole('menuitem', { name: 'Users' })).toHaveCount(0);
    if (SHOTS) {
      await expect(page.getByRole('menu')).toHaveCSS('opacity', '1');
      await shot(page, 'settings-menu-phone');
    }
    await page.getByRole('menuitem', { name: 'Notifications' }).click();
    await expect(page).toHaveURL(/\/client-settings\/notifications\?client_id=/);
    await expect(page.getByRole('button', { name: 'Settings: Notifications' })).toBeVisible();
  });
});

test.describe('only what this installation is set up for (issue 42 item 3)', () => {
  test('a new owner is offered the platforms set up here; Salesforce, not set up, says so in plain words', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    // The e2e installation sets up Google, Microsoft, Salesloft and HubSpot, not Outreach or Salesforce.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto('/login');
      await expect(page.getByRole('link', { name: 'Continue with Google' })).toBeVisible();
      await expect(page.getByRole('link', { name: 'Continue with Microsoft' })).toBeVisible();
      await shot(page, `login-${width}`, { fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await register(page);
    await expect(page.getByText('Where do your cadences live?')).toBeVisible();
    await expect(page.getByRole('button', { name: /Connect Salesloft/ })).toBeVisible();
    await expect(page.getByRole('button', { name: /Connect Apollo/ })).toBeVisible();
    await expect(page.getByRole('button', { name: /Connect Outreach/ })).toHaveCount(0);

    const nav = page.getByRole('navigation', { name: 'Settings' });
    await page.getByRole('link', { name: 'Settings' }).click();
    await nav.getByRole('link', { name: 'Connections' }).click();
    await expect(page.getByRole('heading', { name: 'Add a CRM' })).toBeVisible();
    await expect(page.locator('a[href^="/settings/integrations/hubspot"]')).toHaveCount(1);
    await expect(page.locator('a[href^="/settings/integrations/salesforce"]')).toHaveCount(0);
    const clientId = new URL(page.url()).searchParams.get('client_id');
    await page.goto(`/settings/integrations/salesforce?client_id=${clientId}`);
    const region = page.getByRole('region', { name: 'Salesforce connection' });
    await expect(
      region.getByText('Not available on this installation — ask your administrator.'),
    ).toBeVisible();
    await expect(region.getByRole('button', { name: 'Connect Salesforce' })).toHaveCount(0);
    await expect(page.locator('main')).not.toContainText('CLIENT_ID');
  });
});

test.describe('demo connections (issue 42 item 4)', () => {
  test('the seeded Salesforce says it is demo data, offers no Sync now, and says why it cannot be connected here', async ({
    page,
  }) => {
    test.setTimeout(90_000);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      if (width === 1280) await signInTo(page, `/settings/connections?client_id=${CLIENTS.acme}`);
      else await page.reload();
      const card = page.getByRole('region', { name: 'Salesforce connection' });
      await expect(card.getByText('Demo data', { exact: true })).toBeVisible();
      await expect(card.getByText(/These are sample records that show what Rally does/)).toBeVisible();
      await expect(card.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
      // The e2e installation has no Salesforce app: the way forward is the administrator.
      await expect(
        card.getByText('Not available on this installation — ask your administrator.'),
      ).toBeVisible();
      await shot(page, `demo-connection-${width}`, { fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
    await page
      .getByRole('region', { name: 'Salesforce connection' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await expect(page).toHaveURL(/\/settings\/integrations\/salesforce\?client_id=/);
    const region = page.getByRole('region', { name: 'Salesforce connection' });
    await expect(region.getByRole('heading', { name: 'Connection' })).toBeVisible();
    await expect(region.getByText('Demo data', { exact: true })).toBeVisible();
    await expect(region.getByText(/These are sample records/)).toBeVisible();
    await expect(region.getByRole('button', { name: 'Sync now' })).toHaveCount(0);
    await expect(region.getByRole('button', { name: 'Disconnect' })).toHaveCount(0);
    await shot(page, 'demo-connection-page', { fullPage: true });
  });
});

test.describe('connection health (issue 40)', () => {
  test("the demo Salesforce's settings page shows its health: budget, last error, last sync, what it sees", async ({
    page,
  }) => {
    test.setTimeout(90_000);
    await signInTo(page, `/settings/connections?client_id=${CLIENTS.acme}`);
    await page
      .getByRole('region', { name: 'Salesforce connection' })
      .getByRole('link', { name: 'Settings' })
      .click();
    await expect(page).toHaveURL(/\/settings\/integrations\/salesforce\?client_id=/);
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const health = page.getByRole('region', { name: 'Connection health' });
      await expect(health.getByText('Connection health', { exact: true })).toBeVisible();
      // The demo's sample data: nothing is asked of Salesforce and no one has connected.
      await expect(
        health.getByText('Sample data: Rally makes no Salesforce calls until you connect your own account.'),
      ).toBeVisible();
      await expect(health.getByText('No errors in the last sync')).toBeVisible();
      await expect(health.getByText(/^just now|ago \(/)).toBeVisible();
      await expect(health.getByText('Sample data: no Salesforce user has connected yet.')).toBeVisible();
      await shot(page, `connection-health-${width}`, { fullPage: true });
      await shot(health, `connection-health-panel-${width}`);
    }
  });
});
