import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ClientSettings } from '@rally/shared/schemas/content';
import { loadSession } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { DomainSettingsScreen } from './domain-settings-screen.tsx';
import { FacebookSettingsScreen } from './facebook-settings-screen.tsx';
import { landingPageFormValues, validateLandingPageForm } from './landing-page-editor-screen.tsx';
import { LandingPagesScreen } from './landing-pages-screen.tsx';
import { ACME, PAGE_ID, acmeSession, cleanUpSession, landingPage } from './test-fixtures.ts';
import type { Role, Routes } from './test-fixtures.ts';
import { WebsiteSettingsScreen } from './website-settings-screen.tsx';

const settings: ClientSettings = {
  client_id: ACME,
  colors: { background: '#111827', text: '#ffffff', accent: '#f97316', primary: null },
  facebook_cover_photo: '',
  facebook_name: 'Acme Robotics',
  facebook_page_url: '',
  facebook_profile_photo: '',
  favicon_url: '',
  website_url: 'https://acme.example',
  logo_url: '',
  revenue_report_enabled: false,
  attribution_window_days: 90,
  landing_button_name: 'Book a meeting',
  landing_page_domain: null,
  landing_trigger_field: 'calendar_url',
  landing_trigger_type: 'button',
  updated_at: null,
};

async function signIn(role: Role, routes: Routes = {}) {
  const server = fakeServer({
    ...acmeSession(role),
    [`GET /v1/rest/client/${ACME}/settings`]: { body: settings },
    [`PUT /v1/rest/client/${ACME}/settings`]: (init) => ({
      body: { ...settings, ...JSON.parse(String(init?.body)) },
    }),
    [`GET /v1/rest/client/${ACME}/landing_page`]: { body: { items: [landingPage] } },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (path: string) =>
  renderRoutes(
    [
      { path: '/client-settings/website', element: <WebsiteSettingsScreen /> },
      { path: '/client-settings/facebook', element: <FacebookSettingsScreen /> },
      { path: '/settings/domain', element: <DomainSettingsScreen /> },
      { path: '/landing-pages', element: <LandingPagesScreen /> },
    ],
    path,
  );

afterEach(cleanUpSession);

describe('landing page form validation (shared schema)', () => {
  const values = landingPageFormValues(landingPage);
  it("a colour that is not 6 hex digits: 'is not a valid hex color'", () => {
    expect(validateLandingPageForm({ ...values, colors: { ...values.colors, accent: 'fff' } })).toEqual({
      'colors.accent': 'This is not a valid hex color',
    });
  });
  it('a hero image must be http(s) or one of our uploads; the name is required', () => {
    expect(
      validateLandingPageForm({
        ...values,
        name: ' ',
        landing_page_payload: { ...values.landing_page_payload, hero_img: 'javascript:alert(1)' },
      }),
    ).toEqual({
      name: 'This is required',
      'landing_page_payload.hero_img': 'This must be an http(s) URL or an uploaded file (/files/{id})',
    });
  });
});

describe('LandingPagesScreen', () => {
  it('lists a page with its public link', async () => {
    await signIn('green_manager');
    render(`/landing-pages?client_id=${ACME}`);
    const row = await screen.findByRole('row', { name: 'Growth audit' });
    expect(within(row).getByRole('link', { name: 'Growth audit' })).toHaveAttribute(
      'href',
      `/landing-pages/${PAGE_ID}?client_id=${ACME}`,
    );
    expect(within(row).getByRole('link', { name: 'Open Growth audit' })).toHaveAttribute(
      'href',
      '/lp/3mJr7AoUXx2Wqd',
    );
  });

  it('empty: says what a landing page is and offers to make one', async () => {
    await signIn('green_manager', {
      [`GET /v1/rest/client/${ACME}/landing_page`]: { body: { items: [] } },
    });
    render(`/landing-pages?client_id=${ACME}`);
    expect(await screen.findByText('No landing pages yet')).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: 'New landing page' })).toHaveLength(2);
  });
});

describe('WebsiteSettingsScreen', () => {
  it('a file the server refuses is named with the reason; a saved logo is sent with the colours', async () => {
    let uploads = 0;
    const server = await signIn('purple_owner', {
      [`POST /v1/rest/client/${ACME}/uploads`]: () =>
        ++uploads === 1
          ? {
              status: 422,
              body: {
                message: 'body.file: is not a PNG, JPEG, GIF or WebP image',
                errors: [{ field: 'body.file', message: 'is not a PNG, JPEG, GIF or WebP image' }],
              },
            }
          : {
              status: 201,
              body: {
                id: '0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a71',
                kind: 'logo',
                url: '/files/0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a71',
                width: 160,
                height: 48,
                content_type: 'image/png',
                byte_size: 100,
              },
            },
    });
    const user = userEvent.setup({ applyAccept: false });
    const { container } = render(`/client-settings/website?client_id=${ACME}`);
    await screen.findByRole('button', { name: 'Upload logo' });
    const input = () => container.ownerDocument.querySelectorAll<HTMLInputElement>('input[type="file"]')[0]!;
    await user.upload(input(), new File(['not an image'], 'fake.png', { type: 'image/png' }));
    expect(
      await screen.findByText('“fake.png” was not uploaded: it is not a PNG, JPEG, GIF or WebP image.'),
    ).toBeInTheDocument();
    await user.upload(input(), new File([new Uint8Array([0x89, 0x50])], 'logo.png', { type: 'image/png' }));
    // The upload's own picture and the brand preview beside the form.
    const logos = await screen.findAllByRole('img', { name: 'Logo' });
    expect(logos.map((l) => l.getAttribute('src'))).toEqual([
      '/files/0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a71',
      '/files/0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a71',
    ]);
    expect(screen.queryByText(/was not uploaded/)).toBeNull();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(server.calls.some((c) => c.init?.method === 'PUT')).toBe(true));
    const put = server.calls.find((c) => c.init?.method === 'PUT');
    expect(JSON.parse(String(put?.init?.body))).toMatchObject({
      logo_url: '/files/0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a71',
      colors: { background: '#111827', text: '#ffffff', accent: '#f97316', primary: null },
      landing_button_name: 'Book a meeting',
    });
  });

  it("the brand preview's button on Acme's orange has black text (7.5:1; white would be 2.8:1)", async () => {
    await signIn('purple_owner', {
      [`GET /v1/rest/client/${ACME}/settings`]: {
        body: { ...settings, colors: { ...settings.colors, primary: '#f97316' } },
      },
    });
    render(`/client-settings/website?client_id=${ACME}`);
    const preview = await screen.findByLabelText('Brand preview');
    const button = (await within(preview).findByText('Book a meeting')).parentElement!;
    expect(button.style.background).toBe('rgb(249, 115, 22)');
    expect(button.style.color).toBe('rgb(0, 0, 0)');
    // On the dark background the headline stays white.
    expect(within(preview).getByText('Your headline, written for each prospect')).toHaveStyle({
      color: 'rgb(255, 255, 255)',
    });
  });

  it('without settings.write: read-only with the reason, no upload or save', async () => {
    await signIn('green_manager');
    render(`/client-settings/website?client_id=${ACME}`);
    expect(await screen.findByRole('textbox', { name: 'Website URL' })).toHaveAttribute('readonly');
    expect(screen.getByRole('note')).toHaveTextContent('permission to change the settings');
    expect(screen.queryByRole('button', { name: 'Upload logo' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
  });

  it('error: explains and offers to try again', async () => {
    await signIn('purple_owner', {
      [`GET /v1/rest/client/${ACME}/settings`]: { status: 403, body: { message: 'Nope' } },
    });
    render(`/client-settings/website?client_id=${ACME}`);
    expect(await screen.findByText('Could not load brand settings')).toBeInTheDocument();
  });
});

describe('FacebookSettingsScreen', () => {
  it('the cover photo is one CSS url() holding the whole URL, even one built to close it and add another (issue 20)', async () => {
    const cover = 'https://img.example/cover.png?")/**/,url("https://css-leak.example/c';
    await signIn('purple_owner', {
      [`GET /v1/rest/client/${ACME}/settings`]: { body: { ...settings, facebook_cover_photo: cover } },
      'GET /sc/content': { body: { items: [], total: 0 } },
    });
    render(`/client-settings/facebook?client_id=${ACME}`);
    const preview = await screen.findByLabelText('Facebook post preview');
    const box = await within(preview).findByLabelText('Cover photo');
    // The quotes are escaped inside one CSS string, so the browser asks for one address: this one.
    expect(box.style.backgroundImage).toBe(
      'url("https://img.example/cover.png?\\")/**/,url(\\"https://css-leak.example/c")',
    );
  });
});

describe('DomainSettingsScreen', () => {
  const domainPath = `/sc/client/${ACME}/landing_domain`;
  const set = {
    domain: 'go.acme.example',
    dns_record: { type: 'CNAME', name: 'go.acme.example', value: 'app.rally.example' },
    txt_record: {
      type: 'TXT',
      name: '_rally.go.acme.example',
      value: 'rally-verification=4c0b1a1e9f2d4e7c8a6b5d3f2e1c0b9a',
    },
    verified: false,
    verified_at: null,
  };

  it('no domain: the form refuses a URL with the host-name rule, before any call', async () => {
    const server = await signIn('purple_owner', {
      [`GET ${domainPath}`]: {
        body: { domain: null, dns_record: null, txt_record: null, verified: false, verified_at: null },
      },
    });
    const user = userEvent.setup();
    render(`/settings/domain?client_id=${ACME}`);
    await user.type(await screen.findByRole('textbox', { name: 'Domain' }), 'https://go.acme.example/x');
    await user.click(screen.getByRole('button', { name: 'Add domain' }));
    expect(
      await screen.findByText('This must be a host name such as go.example.com (no scheme, path or port)'),
    ).toBeInTheDocument();
    expect(server.calls.some((c) => c.init?.method === 'PUT')).toBe(false);
  });

  it('a domain: the DNS record to create with copy buttons; Check shows what it found', async () => {
    await signIn('purple_owner', {
      [`GET ${domainPath}`]: { body: set },
      [`POST ${domainPath}/check`]: {
        body: {
          ...set,
          resolved: ['elsewhere.example'],
          message: 'go.acme.example points at elsewhere.example, not app.rally.example.',
        },
      },
    });
    const user = userEvent.setup();
    render(`/settings/domain?client_id=${ACME}`);
    const record = await screen.findByRole('table', { name: 'DNS records to create' });
    expect(within(record).getByText('CNAME')).toBeInTheDocument();
    expect(within(record).getByText('app.rally.example')).toBeInTheDocument();
    expect(within(record).getByRole('button', { name: 'Copy the CNAME record value' })).toBeInTheDocument();
    // The TXT record with the client's token beside it (issue 37.6).
    expect(within(record).getByText('_rally.go.acme.example')).toBeInTheDocument();
    expect(
      within(record).getByText('rally-verification=4c0b1a1e9f2d4e7c8a6b5d3f2e1c0b9a'),
    ).toBeInTheDocument();
    expect(screen.getByText('Not verified')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Check' }));
    expect(
      await screen.findByText('go.acme.example points at elsewhere.example, not app.rally.example.'),
    ).toBeInTheDocument();
    expect(screen.getByText('Not verified yet')).toBeInTheDocument();
  });

  it('without settings.write: no Check or Remove', async () => {
    await signIn('green_manager', { [`GET ${domainPath}`]: { body: set } });
    render(`/settings/domain?client_id=${ACME}`);
    expect(await screen.findByRole('table', { name: 'DNS records to create' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Check' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Remove' })).toBeNull();
    expect(screen.getByRole('note')).toHaveTextContent('permission to change the settings');
  });
});
