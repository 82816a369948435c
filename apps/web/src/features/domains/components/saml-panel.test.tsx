import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { SamlSettings } from '@rally/shared/schemas/saml';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { SamlPanel } from './saml-panel.tsx';
import type { SsoAccess } from './sso-panel.tsx';

/** Issue 44: SAML beside OIDC; set up by owners only (issue 37.1), read by admins, hidden from the rest. */
const ACME = CLIENT_IDS.acme;
const SAML = `/v1/rest/client/${ACME}/saml`;
const settings: SamlSettings = {
  enabled: true,
  idp_entity_id: 'http://www.okta.com/exk1',
  sso_url: 'https://acme.okta.com/app/sso/saml',
  certificates: [{ fingerprint: 'AB:CD', not_after: '2027-12-01T00:00:00.000Z' }],
  metadata_url: null,
  name_id_format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  email_attribute: 'email',
  first_name_attribute: null,
  last_name_attribute: null,
  jit_enabled: false,
  jit_role: 'grey_viewer',
  idp_initiated: false,
  sp_entity_id: `https://app.rally.test/v1/api/auth/saml/${ACME}/metadata`,
  acs_url: `https://app.rally.test/v1/api/auth/saml/${ACME}/acs`,
  sp_metadata_url: `https://app.rally.test/v1/api/auth/saml/${ACME}/metadata`,
  login_url: `https://app.rally.test/v1/api/auth/saml/${ACME}/login`,
  sp_slo_url: `https://app.rally.test/v1/api/auth/saml/${ACME}/slo`,
  slo_url: null,
  sp_certificate: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
  sp_certificate_fingerprint: '12:34:56',
  sign_requests: false,
  idp_wants_signed_requests: false,
  require_encryption: false,
  metadata_fetched_at: null,
  metadata_checked_at: null,
  metadata_error: null,
  domains: ['acme.com'],
};

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({ ...acmeSession(role), ...routes });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}
const render = (access: SsoAccess) =>
  renderRoutes(
    [{ path: '/settings/domain', element: <SamlPanel clientId={ACME} access={access} /> }],
    `/settings/domain?client_id=${ACME}`,
  );
const region = () => screen.findByRole('region', { name: 'SAML single sign-on' });

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('SAML single sign-on', () => {
  it('an owner pastes metadata, turns on JIT with a role; a 422 is shown at its field; then saved', async () => {
    const user = userEvent.setup();
    let attempt = 0;
    const server = await signIn('purple_owner', {
      [`GET ${SAML}`]: { status: 404, body: { message: 'SAML single sign-on is not set up.' } },
      [`PUT ${SAML}`]: () =>
        ++attempt === 1
          ? {
              status: 422,
              body: {
                message: 'body.metadata_xml: is not well-formed XML',
                errors: [{ field: 'body.metadata_xml', message: 'is not well-formed XML' }],
              },
            }
          : { body: { ...settings, jit_enabled: true, jit_role: 'yellow_sdr' } },
    });
    render('owner');
    const panel = await region();
    expect(await within(panel).findByText(/Save once to get the entity ID/)).toBeInTheDocument();
    const xml = within(panel).getByRole('textbox', { name: /metadata \(XML\)/ });
    await user.click(xml);
    await user.paste('<md:EntityDescriptor');
    await user.click(within(panel).getByRole('switch', { name: /Just-in-time membership/ }));
    await user.click(within(panel).getByRole('switch', { name: /Turn on SAML/ }));
    await user.click(within(panel).getByRole('button', { name: 'Save SAML' }));
    expect(await within(panel).findByText('This is not well-formed XML')).toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Save SAML' }));
    await waitFor(() => expect(within(panel).getByText(settings.acs_url)).toBeInTheDocument());
    const puts = server.calls.filter((c) => c.init?.method === 'PUT');
    expect(JSON.parse(String(puts.at(-1)?.init?.body))).toMatchObject({
      enabled: true,
      metadata_xml: '<md:EntityDescriptor',
      metadata_url: null,
      jit_enabled: true,
      jit_role: 'grey_viewer',
      idp_initiated: false,
      sign_requests: false,
      require_encryption: false,
    });
  });

  it('an owner downloads Rally’s certificate, turns on signed requests and required encryption, and sees a failed metadata refresh', async () => {
    const user = userEvent.setup();
    const fetched = {
      ...settings,
      metadata_url: 'https://acme.okta.com/app/exk1/sso/saml/metadata',
      metadata_fetched_at: '2026-12-05T03:00:00.000Z',
      metadata_checked_at: '2026-12-06T03:00:00.000Z',
      metadata_error: 'answered 503, not the metadata',
    };
    const server = await signIn('purple_owner', {
      [`GET ${SAML}`]: { body: fetched },
      [`PUT ${SAML}`]: { body: { ...fetched, sign_requests: true, require_encryption: true } },
    });
    render('owner');
    const panel = await region();
    const download = await within(panel).findByRole('link', { name: /Download certificate/ });
    expect(download).toHaveAttribute('download', 'rally-saml-certificate.pem');
    expect(decodeURIComponent(download.getAttribute('href')!)).toContain(settings.sp_certificate);
    expect(within(panel).getByText(settings.sp_slo_url)).toBeInTheDocument();
    expect(within(panel).getByRole('status', { name: 'Metadata refresh' })).toHaveTextContent(
      /The last fetch failed: answered 503, not the metadata/,
    );
    await user.click(within(panel).getByRole('switch', { name: /Sign authentication requests/ }));
    await user.click(within(panel).getByRole('switch', { name: /Require encrypted assertions/ }));
    await user.click(within(panel).getByRole('button', { name: 'Save SAML' }));
    await waitFor(() => expect(server.calls.some((c) => c.init?.method === 'PUT')).toBe(true));
    const put = server.calls.find((c) => c.init?.method === 'PUT');
    expect(JSON.parse(String(put?.init?.body))).toMatchObject({
      metadata_url: fetched.metadata_url,
      sign_requests: true,
      require_encryption: true,
    });
  });

  it('an admin reads it; others are told who can see it; a failed load offers a retry', async () => {
    await signIn('blue_admin', { [`GET ${SAML}`]: { body: settings } });
    const first = render('read');
    const panel = await region();
    expect(
      await within(panel).findByText(/Identity provider: http:\/\/www.okta.com\/exk1/),
    ).toBeInTheDocument();
    expect(within(panel).getByText(/Only an owner of this client can change/)).toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Save SAML' })).toBeNull();
    first.unmount();
    resetAuth();

    await signIn('green_manager', {});
    const second = render('none');
    expect(await within(await region()).findByText(/Only owners and admins/)).toBeInTheDocument();
    second.unmount();
    resetAuth();

    await signIn('purple_owner', { [`GET ${SAML}`]: { status: 500, body: { message: 'boom' } } });
    render('owner');
    expect(
      await within(await region()).findByRole('button', { name: /Try again|Retry/ }),
    ).toBeInTheDocument();
  });
});
