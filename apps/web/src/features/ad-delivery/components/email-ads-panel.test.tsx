import { notifications } from '@mantine/notifications';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { AdFieldsSettings } from '@rally/shared/schemas/ad-delivery';
import type { EmailSnippetStatus } from '@rally/shared/schemas/email-ads';
import { loadSession, resetAuth } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { CLIENT_IDS, acmeSession } from '../../../testing/fixtures.ts';
import type { Role, Routes } from '../../../testing/fixtures.ts';
import { EmailAdsPanel } from './email-ads-panel.tsx';
import type { EmailAdsCadence } from './email-ads-panel.tsx';

/** Issue 38: a cadence's "Add ads to your e-mails" step, for an owner, an SDR and on failures. */
const ACME = CLIENT_IDS.acme;
const STEP = `/v1/rest/client/${ACME}/cadence/7/email_snippet`;
const FIELDS = `/v1/rest/client/${ACME}/ad_fields`;
const CADENCE: EmailAdsCadence = {
  id: 7,
  integration_id: 2,
  source: 'outreach',
  name: 'Enterprise Outbound',
};

const status = (patch: Partial<EmailSnippetStatus> = {}): EmailSnippetStatus => ({
  cadence_id: 7,
  cadence_name: 'Enterprise Outbound',
  ads_on: true,
  targets: 120,
  installed_at: null,
  preview_path: '/content/preview/abc/email.png',
  last_test: null,
  ...patch,
});

const fields = (patch: Partial<AdFieldsSettings> = {}): AdFieldsSettings => ({
  integration_id: 2,
  source: 'outreach',
  image_field: 'custom149',
  click_field: 'custom150',
  enabled: true,
  status: 'ready',
  can_create_fields: false,
  instructions: null,
  targets_written: 120,
  targets_pending: 0,
  targets_failed: 0,
  last_written_at: null,
  last_error: null,
  ...patch,
});

async function signIn(role: Role, routes: Routes) {
  const server = fakeServer({
    ...acmeSession(role),
    [`GET ${FIELDS}`]: { body: { items: [fields()] } },
    ...routes,
  });
  vi.stubGlobal('fetch', server.fetchFn);
  await loadSession();
  return server;
}

const render = (canWrite: boolean, cadence: EmailAdsCadence = CADENCE) =>
  renderRoutes(
    [
      {
        path: '/cadence/:id',
        element: <EmailAdsPanel clientId={ACME} cadence={cadence} canWrite={canWrite} />,
      },
    ],
    `/cadence/7?client_id=${ACME}`,
  );

const region = () => screen.findByRole('region', { name: 'Add ads to your e-mails' });

afterEach(() => {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
});

describe('Add ads to your e-mails (a cadence)', () => {
  it("shows the owner Outreach's snippet with its fields, copies it, and sends a test", async () => {
    const user = userEvent.setup();
    const writeText = vi.fn(() => Promise.resolve());
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } });
    const server = await signIn('purple_owner', {
      [`GET ${STEP}`]: { body: status() },
      [`POST ${STEP}/test`]: {
        status: 202,
        body: {
          sent_at: '2026-05-01T10:00:00.000Z',
          sent_to: 'demo@rally.test',
          prospect_name: 'Ada Lovelace',
          opened_at: null,
          clicked_at: null,
        },
      },
    });
    render(true);
    const panel = await region();
    expect(await within(panel).findByText('Not installed yet')).toBeInTheDocument();
    const code = await within(panel).findByLabelText('E-mail snippet');
    expect(code.textContent).toContain('href="{{custom150}}"');
    expect(code.textContent).toContain('src="{{custom149}}"');
    expect(within(panel).getByText(/In Outreach, open the template/)).toBeInTheDocument();
    expect(within(panel).getByLabelText('Plain-text line').textContent).toBe(
      'A personal note for you: {{custom150}}',
    );
    expect(within(panel).getByRole('img').getAttribute('src')).toBe('/content/preview/abc/email.png');

    await user.click(within(panel).getByRole('button', { name: 'Copy snippet' }));
    expect(writeText).toHaveBeenCalledWith(code.textContent);
    expect(await within(panel).findByRole('button', { name: 'Snippet copied' })).toBeInTheDocument();

    await user.click(within(panel).getByRole('button', { name: 'Send me a test e-mail' }));
    expect(
      await within(panel).findByText("Sent to demo@rally.test. It shows Ada Lovelace's ad."),
    ).toBeInTheDocument();
    const posts = server.calls.filter((c) => c.init?.method === 'POST' && c.url.endsWith('/test'));
    expect(posts).toHaveLength(1);
    expect(
      within(panel).getByRole('button', { name: 'Download targets with ad URLs (CSV)' }),
    ).toBeInTheDocument();
  });

  it('turns to Installed with the first impression, and shows the last test', async () => {
    await signIn('purple_owner', {
      [`GET ${STEP}`]: {
        body: status({
          installed_at: '2026-05-02T09:30:00.000Z',
          last_test: {
            sent_at: '2026-05-01T10:00:00.000Z',
            sent_to: 'demo@rally.test',
            prospect_name: 'Ada Lovelace',
            opened_at: '2026-05-01T10:05:00.000Z',
            clicked_at: null,
          },
        }),
      },
    });
    render(true);
    const panel = await region();
    expect(
      await within(panel).findByText(/^Installed — first impression at May 2, 2026/),
    ).toBeInTheDocument();
    expect(within(panel).getByText(/Your last test: sent to demo@rally.test .* opened/)).toBeInTheDocument();
  });

  it('shows the hourly limit and the ads-off refusal where the button is, sending once each', async () => {
    const user = userEvent.setup();
    let reply: { status: number; headers: Record<string, string>; body: { message: string } } = {
      status: 429,
      headers: { 'retry-after': '1800' },
      body: { message: 'You sent 5 test e-mails in the last hour. Try again in 30 minutes.' },
    };
    const server = await signIn('blue_admin', {
      [`GET ${STEP}`]: { body: status() },
      [`POST ${STEP}/test`]: () => reply,
    });
    render(true);
    const panel = await region();
    await user.click(await within(panel).findByRole('button', { name: 'Send me a test e-mail' }));
    expect(await within(panel).findByText(/Try again in 30 minutes/)).toBeInTheDocument();
    reply = { status: 409, headers: {}, body: { message: 'Ads are off for this cadence.' } };
    await user.click(within(panel).getByRole('button', { name: 'Send me a test e-mail' }));
    expect(await within(panel).findByText('Ads are off for this cadence.')).toBeInTheDocument();
    expect(server.calls.filter((c) => c.init?.method === 'POST')).toHaveLength(2);
  });

  it('is read-only for an SDR, saying why, and still offers the snippet and the download', async () => {
    await signIn('yellow_sdr', { [`GET ${STEP}`]: { body: status({ ads_on: false }) } });
    render(false);
    const panel = await region();
    expect(await within(panel).findByText(/Read only: sending a test e-mail/)).toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Send me a test e-mail' })).toBeNull();
    expect(within(panel).getByText('Ads are off')).toBeInTheDocument();
    expect(await within(panel).findByRole('button', { name: 'Copy snippet' })).toBeInTheDocument();
    expect(
      within(panel).getByRole('button', { name: 'Download targets with ad URLs (CSV)' }),
    ).toBeInTheDocument();
  });

  it('a viewer is told the download needs reports, and an empty cadence cannot send a test', async () => {
    await signIn('grey_viewer', { [`GET ${STEP}`]: { body: status({ targets: 0, preview_path: null }) } });
    render(false);
    const panel = await region();
    expect(
      await within(panel).findByText('Downloading the targets needs access to reports.'),
    ).toBeInTheDocument();
    expect(within(panel).getByText(/no prospects yet/)).toBeInTheDocument();
    expect(within(panel).getByText(/No day of this cadence has content yet/)).toBeInTheDocument();
  });

  it('asks for the two fields first when the connection has none, linking to it', async () => {
    await signIn('purple_owner', {
      [`GET ${STEP}`]: { body: status() },
      [`GET ${FIELDS}`]: {
        body: { items: [fields({ image_field: null, click_field: null, status: 'not_set_up' })] },
      },
    });
    render(true);
    const panel = await region();
    expect(await within(panel).findByText('Choose the two Outreach fields first')).toBeInTheDocument();
    expect(within(panel).getByRole('link', { name: 'Open the Outreach connection' })).toHaveAttribute(
      'href',
      `/settings/integrations/outreach?client_id=${ACME}#ad-fields`,
    );
    expect(within(panel).queryByLabelText('E-mail snippet')).toBeNull();
  });

  it("gives a file-import cadence the CSV columns' snippet", async () => {
    await signIn('purple_owner', { [`GET ${STEP}`]: { body: status() } });
    render(true, { ...CADENCE, source: 'fileforce' });
    const panel = await region();
    const code = await within(panel).findByLabelText('E-mail snippet');
    expect(code.textContent).toContain('src="{{ad_image_url}}"');
    expect(within(panel).getByText(/Import its ad_image_url and click_url columns/)).toBeInTheDocument();
  });

  it('shows Salesforce Lightning first and Classic on request', async () => {
    const user = userEvent.setup();
    await signIn('purple_owner', {
      [`GET ${STEP}`]: { body: status() },
      [`GET ${FIELDS}`]: {
        body: {
          items: [fields({ source: 'salesforce', image_field: 'Ad_Image__c', click_field: 'Ad_Click__c' })],
        },
      },
    });
    render(true, { ...CADENCE, source: 'salesforce' });
    const panel = await region();
    const code = await within(panel).findByLabelText('E-mail snippet');
    expect(code.textContent).toContain('{{{Recipient.Ad_Image__c}}}');
    await user.click(within(panel).getByText('Classic email template'));
    await waitFor(() =>
      expect(within(panel).getByLabelText('E-mail snippet').textContent).toContain('{!Contact.Ad_Image__c}'),
    );
  });

  it("downloads the cadence's targets with their ad URLs under the cadence's name", async () => {
    const user = userEvent.setup();
    const createObjectURL = vi.fn(() => 'blob:targets');
    vi.stubGlobal('URL', Object.assign(URL, { createObjectURL, revokeObjectURL: vi.fn() }));
    const clicked: string[] = [];
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      clicked.push(this.download);
    });
    const server = await signIn('purple_owner', {
      [`GET ${STEP}`]: { body: status() },
      [`GET /v1/rest/client/${ACME}/cadence/7/targets/export`]: { body: 'first_name\n' },
    });
    render(true);
    const panel = await region();
    await user.click(
      await within(panel).findByRole('button', { name: 'Download targets with ad URLs (CSV)' }),
    );
    await waitFor(() => expect(clicked).toEqual(['cadence-enterprise-outbound-ad-urls.csv']));
    expect(server.calls.some((c) => c.url.endsWith('/cadence/7/targets/export'))).toBe(true);
    click.mockRestore();
  });

  it('says what went wrong when the step cannot be loaded, and tries again', async () => {
    const user = userEvent.setup();
    let fail = true;
    await signIn('purple_owner', {
      [`GET ${STEP}`]: () =>
        fail ? { status: 403, body: { message: 'Not allowed here.' } } : { body: status() },
    });
    render(true);
    const panel = await region();
    expect(await within(panel).findByText('Could not load the e-mail step')).toBeInTheDocument();
    fail = false;
    await user.click(within(panel).getByRole('button', { name: 'Try again' }));
    expect(await within(panel).findByText('Not installed yet')).toBeInTheDocument();
  });
});
