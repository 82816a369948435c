import { expect } from 'vitest';
import type { SamlSettingsBody } from '@rally/shared/schemas/saml';
import type { createTestApp } from './helpers.ts';
import { makeClient, signedIn } from './http.ts';
import type { startFakeDns } from './fakes/dns.ts';
import type { NextLogin, TestSamlIdp } from './saml-idp.ts';

type App = Awaited<ReturnType<typeof createTestApp>>;
type Dns = Awaited<ReturnType<typeof startFakeDns>>;

export const PERSISTENT = 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent';

/**
 * The steps of a SAML sign-in over real HTTP against an app listening at `appUrl`: a client with a
 * verified domain and SAML set up, the IdP's form posted to the ACS, and SP-initiated sign-in.
 */
export function samlFlow(app: App, appUrl: string, dns: Dns) {
  let n = 0;

  /** A client whose owner verified `<name>.test` and set SAML up with the IdP's metadata. */
  async function samlClient(idp: TestSamlIdp, settings: Partial<SamlSettingsBody> = {}) {
    const domain = `samlf${++n}-${Date.now().toString(36)}.test`;
    const clientId = await makeClient(app, `Saml Flow ${n}`);
    const { browser: owner } = await signedIn(
      app,
      { [clientId]: 'purple_owner' },
      { email: `owner@${domain}` },
    );
    const list = await owner.get(`/v1/rest/client/${clientId}/domains`);
    dns.records[`_rally.${domain}`] = { txt: [list.json().txt_value] };
    const added = await owner.post(`/v1/rest/client/${clientId}/domains`, { domain });
    const checked = await owner.post(`/v1/rest/client/${clientId}/domains/${added.json().id}/verify`, {});
    expect(checked.json()).toMatchObject({ verified: true });
    const body: SamlSettingsBody = {
      enabled: true,
      metadata_xml: idp.metadata,
      name_id_format: PERSISTENT,
      email_attribute: 'email',
      jit_enabled: false,
      jit_role: 'grey_viewer',
      idp_initiated: false,
      ...settings,
    };
    const put = await owner.put(`/v1/rest/client/${clientId}/saml`, body);
    expect(put.statusCode, put.body).toBe(200);
    const base = `${appUrl}/v1/api/auth/saml/${clientId}`;
    return { clientId, domain, owner, body, settings: put.json(), acs: `${base}/acs`, base };
  }

  /** Posts a form as the IdP's auto-posting page would (cross-site). */
  async function postForm(url: string, fields: Record<string, string>, cookie?: string) {
    const res = await fetch(url, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'sec-fetch-site': 'cross-site',
        ...(cookie ? { cookie } : {}),
      },
      body: new URLSearchParams(fields),
    });
    return {
      status: res.status,
      location: res.headers.get('location'),
      cookies: res.headers.getSetCookie(),
      text: await res.text(),
    };
  }

  /** SP-initiated: the app redirects to the IdP, the IdP answers with its form, the browser posts it. */
  async function signIn(idp: TestSamlIdp, clientId: string, next: NextLogin) {
    idp.setNextLogin(next);
    const start = await fetch(`${appUrl}/v1/api/auth/saml/${clientId}/login`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const to = start.headers.get('location')!;
    expect(to.startsWith(idp.ssoUrl)).toBe(true);
    const page = await fetch(to);
    const form = await page.text();
    if (page.status !== 200) {
      return {
        status: page.status,
        idpRefused: form,
        location: null,
        cookies: [] as string[],
        saml: '',
        relay: '',
      };
    }
    const field = (name: string) =>
      new RegExp(`name="${name}" value="([^"]*)"`).exec(form)?.[1]?.replace(/&amp;/g, '&') ?? '';
    const saml = field('SAMLResponse');
    const relay = field('RelayState');
    const end = await postForm(`${appUrl}/v1/api/auth/saml/${clientId}/acs`, {
      SAMLResponse: saml,
      ...(relay ? { RelayState: relay } : {}),
    });
    return { ...end, saml, relay, idpRefused: null };
  }

  return { samlClient, postForm, signIn };
}

export const sessionCookie = (cookies: string[]) =>
  cookies.find((c) => c.startsWith('rally_auth_token='))?.split(';')[0] ?? null;
export const failed = (reason: string) => `/auth/callback?error=${reason}`;
