import { deflateSync } from 'node:zlib';
import type { APIRequestContext, Page } from '@playwright/test';
import { expect, stretch } from './fixtures.ts';

export const DEMO = { email: 'demo@rally.test', password: 'rally-demo-2026', name: 'Dana Reyes' };
export const SAM = { email: 'sam@rally.test', password: 'rally-demo-2026', name: 'Sam Okafor' };
export const CLIENTS = {
  agency: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001',
  acme: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002',
  globex: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000003',
};

export const unique = (prefix: string) =>
  `${prefix}-${Date.now()}-${Math.random().toString(36).slice(2, 7)}@example.com`;

/** Signs in through the login form. */
export async function signInUI(page: Page, email: string, password: string) {
  if (!page.url().includes('/login')) await page.goto('/login');
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/**
 * Waits until the header shows the signed-in user's name. 45 s: on CI's two cores shared by five
 * suites, a browser starved of CPU took 13 s between self's answer and its next request.
 */
export async function expectSignedIn(page: Page, name: string) {
  await expect(page.getByRole('button', { name: 'Account menu' })).toContainText(name, {
    timeout: stretch(45_000),
  });
}

type User = { email: string; password: string; name: string };

/**
 * Signs in through the API (the login form has tests of its own: auth.spec.ts), opens `to` and
 * waits for the header to greet the user. Skipping the form saves two loads of the app per test,
 * which the whole suite pays for on a 2-core machine.
 */
export async function signInTo(page: Page, to: string, user: User = DEMO) {
  const res = await api(page.request, 'POST', '/v1/api/auth', { email: user.email, password: user.password });
  expect(res.status(), await res.text()).toBe(200);
  expect(((await res.json()) as { mfa: boolean }).mfa, 'signInTo cannot answer a second factor').toBe(false);
  await page.goto(to);
  await expectSignedIn(page, user.name);
}

/** Signs in (through the API) and waits on the app's home screen for the header to greet the user. */
export async function signInAs(page: Page, user: User = DEMO) {
  await signInTo(page, '/', user);
}

/** A real PNG of one flat colour, for uploads that check an image by its bytes. */
export function pngOf(width: number, height: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf: Buffer) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff]! ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const out = Buffer.alloc(body.length + 8);
    out.writeUInt32BE(data.length, 0);
    body.copy(out, 4);
    out.writeUInt32BE(crc(body), body.length + 4);
    return out;
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header[8] = 8; // bit depth
  header[9] = 2; // truecolour
  const row = Buffer.concat([Buffer.from([0]), Buffer.alloc(width * 3).map((_, i) => rgb[i % 3]!)]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(pixels)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

type Mail = { to: string[]; subject: string; raw: string };

/** The newest e-mail to `to` whose body has a link matching `pattern`; the link, decoded. */
export async function linkFromMail(to: string, pattern: RegExp): Promise<string> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const mails = (await (await fetch(`${process.env.E2E_MAILBOX_URL}/`)).json()) as Mail[];
    const mine = mails.filter((m) => m.to.includes(to));
    for (const m of mine.reverse()) {
      // Quoted-printable soft line breaks and '=' escapes.
      const body = m.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
      const link = body.match(pattern)?.[0];
      if (link) return link;
    }
    if (Date.now() > deadline) throw new Error(`no e-mail to ${to} with ${pattern}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Calls the API as the page's signed-in user (its cookies), with the CSRF token the server hands
 * out, as the app's own HTTP client does.
 */
export async function api(
  request: APIRequestContext,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  data?: unknown,
  clientId?: string,
) {
  const csrf = (await request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
  const res = await request.fetch(url, {
    method,
    data,
    headers: { 'x-xsrf-token': csrf, ...(clientId ? { 'x-client-id': clientId } : {}) },
  });
  return res;
}

/** The sign-up link e-mailed to a new address (`/register?confirm=`). */
export const SIGN_UP_LINK = /http:\/\/localhost:\d+\/register\?confirm=[\w.-]+/;

/**
 * Signs up through /register as a person would: the form, "Check your e-mail", the e-mailed link,
 * the password again. Signed in on `page` afterwards (a new company lands on /onboarding).
 */
export async function signUpUI(
  page: Page,
  who: { first: string; last: string; email: string; company: string; password: string },
) {
  await page.goto('/register');
  await page.getByLabel('First name').fill(who.first);
  await page.getByLabel('Last name').fill(who.last);
  await page.getByLabel('Work email').fill(who.email);
  await page.getByLabel('Company').fill(who.company);
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Sign Up' }).click();
  await expect(page.getByRole('heading', { name: 'Check your e-mail' })).toBeVisible();
  await expect(page.getByRole('status')).toContainText(who.email);
  await page.goto(await linkFromMail(who.email, SIGN_UP_LINK));
  await expect(page.getByRole('heading', { name: 'Finish creating your account' })).toBeVisible();
  await page.getByLabel('Password', { exact: true }).fill(who.password);
  await page.getByRole('button', { name: 'Create my account' }).click();
}

/**
 * Creates an account (and its company) through the API as a person would: sign up, open the e-mailed
 * link, give the password again. Signed in on `request` afterwards.
 */
export async function registerViaApi(
  request: APIRequestContext,
  email: string,
  password = 'a long enough password',
  names: { first_name?: string; last_name?: string; company_name?: string } = {},
) {
  const res = await api(request, 'POST', '/v1/api/register', {
    first_name: 'Eve',
    last_name: 'Tester',
    email,
    password,
    company_name: 'Tester Co',
    ...names,
  });
  expect(res.status(), await res.text()).toBe(202);
  const token = new URL(await linkFromMail(email, SIGN_UP_LINK)).searchParams.get('confirm');
  const done = await api(request, 'POST', '/v1/api/register/confirm', { token, password });
  expect(done.status(), await done.text()).toBe(201);
  return { email, password };
}

/**
 * Imports a small file through the app's file import: one prospect on day 1 and `who` on day 2 of a
 * new cadence of `clientId`, so a test can change that cadence without touching another test's.
 */
export async function importCadence(
  request: APIRequestContext,
  clientId: string,
  cadence: string,
  who: { first: string; last: string },
) {
  const email = `${who.first}.${who.last}@tagwalk.example`.toLowerCase();
  const csv = [
    'Email,First Name,Last Name,Title,Company,Website,Cadence,Day,Rep Email,Rep First Name,Rep Last Name,Rep Title',
    `day1.${email},Dayone,${who.last},Buyer,Tagwalk Freight,https://tagwalk.example,${cadence},1,maya.lindgren@acme-robotics.example,Maya,Lindgren,Senior SDR`,
    `${email},${who.first},${who.last},VP Operations,Tagwalk Freight,https://tagwalk.example,${cadence},2,maya.lindgren@acme-robotics.example,Maya,Lindgren,Senior SDR`,
  ].join('\n');
  const csrf = (await request.get('/v1/api/auth/csrf')).headers()['x-xsrf-token'] ?? '';
  const headers = { 'x-xsrf-token': csrf, 'x-client-id': clientId };
  const imports = `/v1/integration/crm/fileforce/client/${clientId}/imports`;
  const up = await request.post(imports, {
    headers,
    multipart: {
      kind: 'targets',
      file: { name: `${cadence}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) },
    },
  });
  expect(up.status(), await up.text()).toBe(201);
  const { id } = (await up.json()) as { id: string };
  const start = await request.post(`${imports}/${id}/start`, { headers });
  expect(start.status(), await start.text()).toBe(202);
  await expect
    .poll(
      async () => {
        const res = await api(request, 'GET', `${imports}/${id}`, undefined, clientId);
        return ((await res.json()) as { status: string }).status;
      },
      { timeout: stretch(30_000) },
    )
    .toBe('done');
  // What the import did (imported_rows, suppressed_rows…), for walks that check it.
  return (await (await api(request, 'GET', `${imports}/${id}`, undefined, clientId)).json()) as Record<
    string,
    unknown
  >;
}

/** Sets the TXT records the loopback DNS (global-setup.ts) answers for `name`; [] removes them. */
export async function setTxtRecord(name: string, values: string[]) {
  const res = await fetch(`${process.env.E2E_DNS_URL}/txt`, {
    method: 'PUT',
    body: JSON.stringify({ name, values }),
  });
  if (res.status !== 204) throw new Error(`the fake DNS refused ${name}: ${res.status}`);
}
