import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ContentItem } from '@rally/shared/schemas/content';
import { loadSession } from '../../../lib/auth/store.ts';
import { fakeServer, renderRoutes } from '../../../testing/render.tsx';
import { AdEditorScreen, adFormValues, validateAdForm } from './ad-editor-screen.tsx';
import { ContentListScreen } from './content-list-screen.tsx';
import { uploadErrorMessage } from './image-upload.tsx';
import { ACME, PAGE_ID, acmeSession, cleanUpSession, landingPage } from './test-fixtures.ts';
import type { Role, Routes } from './test-fixtures.ts';
import { ApiError } from '../../../lib/api-client.ts';

// Mantine's autosizing Textarea listens for font loading, which jsdom does not have.
Object.defineProperty(document, 'fonts', {
  configurable: true,
  value: { addEventListener: () => {}, removeEventListener: () => {} },
});

const AD_ID = '0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a69';

const item: ContentItem = {
  id: AD_ID,
  client_id: ACME,
  name: 'Spring launch',
  status: 'draft',
  is_archived: false,
  template_id: 2,
  title: 'Robots that ship',
  image_text: 'Pick twice as fast',
  primary_text: 'The A-200 doubles picks per hour.',
  sdr_img_url: '',
  colors: { background: '#ffffff', text: '#000000', accent: '#000000', primary: null },
  assignee: null,
  landing_page_payload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
  landing_page_url: '',
  landing_page_id: PAGE_ID,
  preview_paths: { '1200x628': '/content/preview/abc/1200x628' },
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-02T09:00:00.000Z',
};

/** The fake server, with POST /sc/content/render answering a PNG (binary, which fakeServer cannot). */
async function signIn(role: Role, routes: Routes = {}) {
  const server = fakeServer({
    ...acmeSession(role),
    'GET /sc/content': { body: { items: [item], total: 1 } },
    [`GET /sc/content/${AD_ID}`]: { body: item },
    [`GET /v1/rest/client/${ACME}/landing_page`]: { body: { items: [landingPage] } },
    'GET /sc/sdr': { body: [] },
    [`PATCH /v1/rest/content/${AD_ID}`]: (init) => ({
      body: { ...item, ...JSON.parse(String(init?.body)), updated_at: '2026-11-03T09:00:00.000Z' },
    }),
    ...routes,
  });
  const renders: { size: string; body: Record<string, unknown> }[] = [];
  const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const fetchFn = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = new URL(String(input), window.location.origin);
    if (url.pathname === '/sc/content/render') {
      renders.push({ size: url.searchParams.get('size') ?? '', body: JSON.parse(String(init?.body)) });
      return new Response(png, { status: 200, headers: { 'content-type': 'image/png' } });
    }
    return server.fetchFn(input, init);
  };
  vi.stubGlobal('fetch', fetchFn);
  await loadSession();
  return { ...server, renders };
}

const render = (path: string) =>
  renderRoutes(
    [
      { path: '/content', element: <ContentListScreen /> },
      { path: '/content/:id', element: <AdEditorScreen /> },
    ],
    path,
  );

const patches = (calls: { url: string; init?: RequestInit }[]) =>
  calls
    .filter((c) => c.init?.method === 'PATCH')
    .map((c) => JSON.parse(String(c.init?.body)) as Record<string, unknown>);

afterEach(cleanUpSession);

describe('ad form validation (the shared request schema, SPEC.md §5)', () => {
  const values = adFormValues(item);
  it.each(['fff', '#GGGGGG', '#12345', 'red'])("colour %s: 'is not a valid hex color'", (bad) => {
    expect(validateAdForm({ ...values, colors: { ...values.colors, background: bad } })).toEqual({
      'colors.background': 'This is not a valid hex color',
    });
  });
  it("'#A1b2C3', 'A1b2C3' and an empty primary are valid", () => {
    expect(
      validateAdForm({ ...values, colors: { ...values.colors, accent: '#A1b2C3', text: 'A1b2C3' } }),
    ).toEqual({});
  });
  it.each([0, 5, 2.5])('template_id %s: must be a whole number from 1 to 4', (bad) => {
    expect(validateAdForm({ ...values, template_id: bad })).toEqual({
      template_id: 'This must be a whole number from 1 to 4',
    });
  });
  it('a landing URL must be http(s), and its error shows on the URL field', () => {
    expect(
      validateAdForm({ ...values, landing_kind: 'url', landing_page_url: 'javascript:alert(1)' }),
    ).toEqual({ landing_page_url: 'This must be an http(s) URL' });
  });
});

describe('ContentListScreen', () => {
  it('lists an ad with its status, template, landing page and a link to its editor', async () => {
    await signIn('purple_owner');
    render(`/content?client_id=${ACME}`);
    const table = await screen.findByRole('table', { name: 'Ad creatives' });
    const row = within(table).getByRole('row', { name: 'Spring launch' });
    expect(within(row).getByRole('link', { name: 'Spring launch' })).toHaveAttribute(
      'href',
      `/content/${AD_ID}?client_id=${ACME}`,
    );
    expect(within(row).getByLabelText('Status: Draft')).toBeInTheDocument();
    expect(within(row).getByText('Portrait')).toBeInTheDocument();
    expect(within(row).getByText('Landing page')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'New ad' })).toBeInTheDocument();
  });

  it('archived filter asks for archived=only; empty says so', async () => {
    const server = await signIn('purple_owner', {
      'GET /sc/content': { body: { items: [], total: 0 } },
    });
    const user = userEvent.setup();
    render(`/content?client_id=${ACME}`);
    expect(await screen.findByText('No ads yet')).toBeInTheDocument();
    await user.click(screen.getByRole('radio', { name: 'Archived' }));
    expect(await screen.findByText('No archived ads')).toBeInTheDocument();
    expect(server.calls.map((c) => c.url)).toContain('/sc/content?archived=only');
  });

  it('error: explains and offers to try again', async () => {
    await signIn('purple_owner', { 'GET /sc/content': { status: 403, body: { message: 'Nope' } } });
    render(`/content?client_id=${ACME}`);
    expect(await screen.findByText('Could not load content')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('a viewer sees the list without a New ad button, and why', async () => {
    await signIn('grey_viewer');
    render(`/content?client_id=${ACME}`);
    expect(await screen.findByRole('table', { name: 'Ad creatives' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'New ad' })).toBeNull();
    expect(screen.getByRole('note')).toHaveTextContent('permission to change ads and landing pages');
  });
});

describe('AdEditorScreen', () => {
  it('an edited ad asks before leaving (issue 42 item 12): Stay keeps the edit', async () => {
    await signIn('purple_owner');
    const { router } = render(`/content/${AD_ID}?client_id=${ACME}`);
    const imageText = await screen.findByRole('textbox', { name: /^Image text/ });
    fireEvent.change(imageText, { target: { value: 'Pick three times as fast' } });
    await act(() => router.navigate(`/content?client_id=${ACME}`));
    const dialog = await screen.findByRole('dialog', { name: 'Leave without saving?' });
    expect(dialog).toHaveTextContent('Your changes to this ad will be lost.');
    await userEvent.click(within(dialog).getByRole('button', { name: 'Stay' }));
    expect(router.state.location.pathname).toBe(`/content/${AD_ID}`);
    expect(imageText).toHaveValue('Pick three times as fast');
  });

  it('renders the live preview at the four sizes from the unsaved fields', async () => {
    const server = await signIn('purple_owner');
    render(`/content/${AD_ID}?client_id=${ACME}`);
    const preview = await screen.findByRole('group', { name: 'Ad preview at four sizes' });
    await waitFor(() => expect(within(preview).getAllByRole('img')).toHaveLength(4));
    expect(
      within(preview)
        .getAllByRole('img')
        .map((i) => i.getAttribute('alt')),
    ).toEqual(['Ad preview 1080x1080', 'Ad preview 1200x628', 'Ad preview 728x90', 'Ad preview 300x250']);
    expect(server.renders.map((r) => r.size).sort()).toEqual(['1080x1080', '1200x628', '300x250', '728x90']);
    expect(server.renders[0]?.body).toMatchObject({ template_id: 2, image_text: 'Pick twice as fast' });
  });

  it('template picker: choosing Bold re-renders the preview with template 3 and saves it', async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/content/${AD_ID}?client_id=${ACME}`);
    const bold = await screen.findByRole('radio', { name: 'Template 3: Bold' });
    expect(screen.getByRole('radio', { name: 'Template 2: Portrait' })).toBeChecked();
    await user.click(bold);
    expect(bold).toBeChecked();
    await waitFor(() => expect(server.renders.some((r) => r.body.template_id === 3)).toBe(true), {
      timeout: 3000,
    });
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(patches(server.calls)).toHaveLength(1));
    expect(patches(server.calls)[0]).toMatchObject({
      template_id: 3,
      updated_at: item.updated_at,
      landing_page_id: PAGE_ID,
      landing_page_url: '',
    });
  });

  it("a wrong colour says 'is not a valid hex color' as it is typed, and is not saved", async () => {
    const server = await signIn('purple_owner');
    const user = userEvent.setup();
    render(`/content/${AD_ID}?client_id=${ACME}`);
    const background = await screen.findByRole('textbox', { name: 'Background' });
    await user.clear(background);
    await user.type(background, 'fff');
    expect(await screen.findByText('This is not a valid hex color')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(patches(server.calls)).toHaveLength(0);
    fireEvent.change(background, { target: { value: '#A1b2C3' } });
    await waitFor(() => expect(screen.queryByText('This is not a valid hex color')).toBeNull());
  });

  it('Publish: the 422 field errors show on their fields with a note', async () => {
    const server = await signIn('purple_owner', {
      [`PATCH /v1/rest/content/${AD_ID}`]: {
        status: 422,
        body: {
          message: 'body.title: is required to publish',
          errors: [
            { field: 'body.title', message: 'is required to publish' },
            { field: 'body.image_text', message: 'is required to publish' },
          ],
        },
      },
    });
    const user = userEvent.setup();
    render(`/content/${AD_ID}?client_id=${ACME}`);
    await user.click(await screen.findByRole('button', { name: 'Publish' }));
    expect(await screen.findByText('Not published yet')).toBeInTheDocument();
    expect(screen.getAllByText('This is required to publish')).toHaveLength(2);
    expect(patches(server.calls)[0]).toMatchObject({ status: 'published' });
  });

  it('tags read as {{Label | fallback}} in the fields, never markup, and are saved with their fallback (issue 42)', async () => {
    const tagged: ContentItem = {
      ...item,
      // Stored before fallbacks existed: the field shows the tag's default.
      title: '<span data-id="prospect_first_name">Prospect first name</span>, meet us',
    };
    const server = await signIn('purple_owner', {
      [`GET /sc/content/${AD_ID}`]: { body: tagged },
      [`PATCH /v1/rest/content/${AD_ID}`]: (init) => ({
        body: { ...tagged, ...JSON.parse(String(init?.body)), updated_at: '2026-11-03T09:00:00.000Z' },
      }),
    });
    const user = userEvent.setup();
    render(`/content/${AD_ID}?client_id=${ACME}`);
    const title = await screen.findByRole('textbox', { name: /^Title/ });
    expect(title).toHaveValue('{{Prospect first name | there}}, meet us');
    expect(
      screen.getByText(/Reads: “Alex, meet us”; without a prospect: “\s*There, meet us”/),
    ).toBeInTheDocument();

    // A tag typed as the menu writes it (the menu's clicks are too flaky under jsdom's transitions).
    const imageText = screen.getByRole('textbox', { name: /^Image text/ });
    fireEvent.change(imageText, {
      target: { value: 'Pick twice as fast {{Prospect company | your company}}' },
    });
    expect(screen.getAllByRole('button', { name: 'Insert a personalisation tag' })).toHaveLength(3);
    for (const field of screen.getAllByRole('textbox')) {
      expect((field as HTMLInputElement).value).not.toMatch(/[<>]/);
    }

    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(patches(server.calls)).toHaveLength(1));
    expect(patches(server.calls)[0]).toMatchObject({
      title: '<span data-id="prospect_first_name" data-fallback="there">Prospect first name</span>, meet us',
      image_text:
        'Pick twice as fast <span data-id="prospect_company_name" data-fallback="your company">Prospect company</span>',
    });
  }, 60_000);

  it('a tag without a fallback is refused on its field and not saved', async () => {
    const server = await signIn('purple_owner');
    render(`/content/${AD_ID}?client_id=${ACME}`);
    const title = await screen.findByRole('textbox', { name: /^Title/ });
    fireEvent.change(title, { target: { value: 'Hi {{Prospect first name}}' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect(await screen.findByText(/Each personalisation tag needs a fallback/)).toBeInTheDocument();
    expect(patches(server.calls)).toHaveLength(0);
  });

  it('Delete while a cadence day uses the ad shows the 409 message', async () => {
    const message =
      'This content is used by Q3 Outbound (day 2). Remove it from there, or archive it instead.';
    await signIn('purple_owner', {
      [`DELETE /v1/rest/content/${AD_ID}`]: { status: 409, body: { message } },
    });
    const user = userEvent.setup();
    render(`/content/${AD_ID}?client_id=${ACME}`);
    // The editor first, then its menu: a click on the menu button while the ad is still loading can
    // land on a button that the loaded screen replaces, and the menu never opens (flaky on main).
    await screen.findByRole('textbox', { name: 'Image text' }, { timeout: 15_000 });
    // Menus and modals open with a transition, slow on a busy machine (5 s was missed twice in a
    // full run beside other work; at load 15 even 30 s, twice in one CI-like run of 2026-12-06, when
    // the click had landed on a button the screen then replaced): the menu is asked for again, up to
    // three times, until its item shows. Only while the button says the menu is closed: a second
    // click on an open menu whose item was still in its transition closed it again (failed so in a
    // CI-like run); the item is taken while it is still fading in (`hidden`).
    let item: HTMLElement | null = null;
    for (let attempt = 0; attempt < 3 && !item; attempt++) {
      const button = await screen.findByRole('button', { name: 'More actions' });
      if (button.getAttribute('aria-expanded') !== 'true') await user.click(button);
      item = await screen
        .findByRole('menuitem', { name: 'Delete', hidden: true }, { timeout: 20_000 })
        .catch(() => null);
    }
    expect(item, 'the More actions menu opened').not.toBeNull();
    await user.click(item!);
    const dialog = await screen.findByRole('dialog', { name: 'Delete this ad?' }, { timeout: 30_000 });
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    expect(await within(dialog).findByText(message, {}, { timeout: 30_000 })).toBeInTheDocument();
  }, 150_000);

  it('a viewer sees the ad read-only: fields disabled, no Save or Publish, and why', async () => {
    await signIn('grey_viewer');
    render(`/content/${AD_ID}?client_id=${ACME}`);
    expect(await screen.findByRole('textbox', { name: 'Image text' })).toHaveAttribute('readonly');
    expect(screen.queryByRole('button', { name: 'Insert a personalisation tag' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Upload rep photo' })).toBeNull();
    expect(screen.getByRole('radio', { name: 'Template 1: Spotlight' })).toBeDisabled();
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Publish' })).toBeNull();
    expect(screen.getByRole('note')).toHaveTextContent('permission to change ads and landing pages');
  });

  it('an unknown ad reads as not found', async () => {
    await signIn('purple_owner', {
      [`GET /sc/content/${AD_ID}`]: { status: 404, body: { message: 'Content not found' } },
    });
    render(`/content/${AD_ID}?client_id=${ACME}`);
    expect(await screen.findByText('Ad not found')).toBeInTheDocument();
  });
});

describe('upload refusals', () => {
  it('a 422 on the file reads as a sentence naming the file', () => {
    const error = new ApiError(422, 'body.file: is not a PNG, JPEG, GIF or WebP image', {
      errors: [{ field: 'body.file', message: 'is not a PNG, JPEG, GIF or WebP image' }],
    });
    expect(uploadErrorMessage(error, 'logo.png')).toBe(
      '“logo.png” was not uploaded: it is not a PNG, JPEG, GIF or WebP image.',
    );
    expect(uploadErrorMessage(new ApiError(500, 'x', null), 'a.png')).toBe(
      '“a.png” was not uploaded: something went wrong. Please try again.',
    );
  });
});
