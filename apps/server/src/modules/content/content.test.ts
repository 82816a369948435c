import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { ContentItem, LandingPage } from '@rally/shared/schemas/content';
import {
  cadenceDays,
  cadences,
  companies,
  content,
  integrations,
  landingPages,
  prospects,
  salesReps,
  targets,
} from '../../db/schema/index.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { escapeText } from './text.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { XSS_CORPUS, executableParts } from '../../../test/xss-corpus.ts';

const PUBLIC_HOST = 'app.rally.example';
const dns = await startFakeDns({});
afterAll(() => dns.close());

const app = await createTestApp({
  env: { PUBLIC_URL: `https://${PUBLIC_HOST}`, DNS_SERVERS: dns.server },
});
const mine = await makeClient(app, 'Mine');
const other = await makeClient(app, 'Other');
const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
const { browser: manager } = await signedIn(app, { [mine]: 'green_manager' });
const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
const { browser: stranger } = await signedIn(app, { [other]: 'purple_owner' });

type Problem = { field: string; message: string };
const fieldsOf = (body: { errors?: Problem[] }) => (body.errors ?? []).map((e) => e.field);

/** A complete, publishable ad body. */
const publishable = {
  name: 'Spring launch',
  template_id: 2,
  title: 'Meet the team',
  image_text: 'Robots that ship',
  primary_text: 'We built it for you.',
  landing_page_url: 'https://acme.example/spring',
};

async function create(body: Record<string, unknown> = {}): Promise<ContentItem> {
  const res = await owner.post('/v1/rest/content', body);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

async function storedRow(id: string) {
  const [row] = await app.db.select().from(content).where(eq(content.id, id));
  return row!;
}

describe('content items: /v1/rest/content and /sc/content (SPEC.md §3 "Content item", §7)', () => {
  it('creates a draft with the defaults of SPEC.md §3 and §9', async () => {
    const item = await create({});
    expect(item).toMatchObject({
      client_id: mine,
      name: null,
      status: 'draft',
      is_archived: false,
      template_id: 1,
      title: '',
      colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
      assignee: null,
      landing_page_payload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
      updated_at: null,
    });
    expect(Date.parse(item.created_at)).not.toBeNaN();
    expect(Object.keys(item.preview_paths)).toEqual(['1080x1080', '1200x628', '728x90', '300x250']);
    expect(item.preview_paths['728x90']).toMatch(/^\/content\/preview\/[1-9A-HJ-NP-Za-km-z]+\/728x90$/);
  });

  it('"Content text fields are escaped (HTML entities) when sent and unescaped when read" (SPEC.md §5): the API round-trips plain text, the database holds it escaped', async () => {
    const text = `Tom & Jerry's <b>"best"</b> &amp; more`;
    const item = await create({ name: text, title: text, image_text: text, primary_text: text });
    expect(item).toMatchObject({ name: text, title: text, image_text: text, primary_text: text });
    const row = await storedRow(item.id);
    const escaped = 'Tom &amp; Jerry&#39;s &lt;b&gt;&quot;best&quot;&lt;/b&gt; &amp;amp; more';
    expect(row).toMatchObject({ name: escaped, title: escaped, imageText: escaped, primaryText: escaped });
    const again = (await owner.get(`/sc/content/${item.id}`)).json();
    expect(again.title).toBe(text);
  });

  it.each([0, 5, 2.5, '2', null])(
    '"template_id: whole number 1 to 4" (SPEC.md §5): %s is refused',
    async (v) => {
      const res = await owner.post('/v1/rest/content', { template_id: v });
      expect(res.statusCode).toBe(422);
      expect(res.json().errors).toEqual([
        { field: 'body.template_id', message: 'must be a whole number from 1 to 4' },
      ]);
    },
  );

  it.each([1, 4])('template_id %s is accepted', async (v) => {
    expect((await create({ template_id: v })).template_id).toBe(v);
  });

  it.each(['fff', '#GGGGGG', '#1234567', ''])(
    '"Hex color … otherwise error \'is not a valid hex color\'" (SPEC.md §5): %s',
    async (c) => {
      for (const field of ['background', 'text', 'accent', 'primary']) {
        const res = await owner.post('/v1/rest/content', { colors: { [field]: c } });
        expect(res.statusCode).toBe(422);
        expect(res.json().errors).toEqual([
          { field: `body.colors.${field}`, message: 'is not a valid hex color' },
        ]);
      }
    },
  );

  it('accepts #A1b2C3 and a1b2c3 and stores them as #-prefixed lower case', async () => {
    const item = await create({
      colors: { background: '#A1b2C3', text: 'A1B2C3', accent: '#000000', primary: 'ffFFff' },
    });
    expect(item.colors).toEqual({
      background: '#a1b2c3',
      text: '#a1b2c3',
      accent: '#000000',
      primary: '#ffffff',
    });
  });

  it('refuses a bad status, a string is_archived, a bad updated_at, ids that are not UUIDs, a bad assignee', async () => {
    const item = await create({});
    const cases: [Record<string, unknown>, string][] = [
      [{ status: 'archived' }, 'body.status'],
      [{ is_archived: 'true' }, 'body.is_archived'],
      [{ updated_at: '2025-13-01' }, 'body.updated_at'],
      [{ landing_page_id: 'not-a-uuid' }, 'body.landing_page_id'],
      [{ assignee: { first_name: 7 } }, 'body.assignee.first_name'],
      [{ assignee: { calendar_url: 'javascript:alert(1)' } }, 'body.assignee.calendar_url'],
      [{ sdr_img_url: 'javascript:alert(1)' }, 'body.sdr_img_url'],
      [
        { landing_page_payload: { hero_img: 'data:image/png;base64,AA' } },
        'body.landing_page_payload.hero_img',
      ],
    ];
    for (const [body, field] of cases) {
      const res = await owner.put(`/sc/content/${item.id}`, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res.json()), JSON.stringify(body)).toEqual([field]);
    }
    const bad = await owner.get('/sc/content/not-a-uuid');
    expect(bad.statusCode).toBe(422);
    expect(fieldsOf(bad.json())).toEqual(['params.id']);
  });

  it('assignee fields default to empty strings and are escaped like the other texts', async () => {
    const item = await create({ assignee: { first_name: 'Ann <3', website: 'https://ann.example' } });
    expect(item.assignee).toEqual({
      first_name: 'Ann <3',
      last_name: '',
      title: '',
      company_name: '',
      website: 'https://ann.example',
      calendar_url: '',
    });
    expect((await storedRow(item.id)).assignee?.first_name).toBe('Ann &lt;3');
  });

  it('draft → published needs a title, image text and somewhere to land (422 naming each)', async () => {
    const item = await create({});
    const res = await owner.put(`/sc/content/${item.id}`, { status: 'published' });
    expect(res.statusCode).toBe(422);
    expect(fieldsOf(res.json())).toEqual(['body.title', 'body.image_text', 'body.landing_page_id']);
    expect(res.json().message).toBe('body.title: is required to publish');
    expect((await owner.post('/v1/rest/content', { status: 'published' })).statusCode).toBe(422);

    const published = await owner.put(`/sc/content/${item.id}`, { ...publishable, status: 'published' });
    expect(published.statusCode, published.body).toBe(200);
    expect(published.json()).toMatchObject({ status: 'published', title: 'Meet the team' });
    expect(Date.parse(published.json().updated_at)).not.toBeNaN();
    // A published item cannot lose a required piece…
    const emptied = await owner.patch(`/v1/rest/content/${item.id}`, { image_text: '  ' });
    expect(emptied.statusCode).toBe(422);
    expect(fieldsOf(emptied.json())).toEqual(['body.image_text']);
    // …but can go back to draft, and then be emptied.
    const draft = await owner.patch(`/v1/rest/content/${item.id}`, { status: 'draft', image_text: '' });
    expect(draft.json()).toMatchObject({ status: 'draft', image_text: '' });
  });

  it('landing HTML of its own, or a landing page of the client, is somewhere to land', async () => {
    const own = await create({
      ...publishable,
      landing_page_url: '',
      landing_page_payload: { hero_html: '<h1>Hi</h1>' },
      status: 'published',
    });
    expect(own.status).toBe('published');
    const lp = (
      await owner.post(`/v1/rest/client/${mine}/landing_page`, { name: 'LP' })
    ).json() as LandingPage;
    const linked = await create({
      ...publishable,
      landing_page_url: '',
      landing_page_id: lp.id,
      status: 'published',
    });
    expect(linked.landing_page_id).toBe(lp.id);
    const foreignLp = (
      await stranger.post(`/v1/rest/client/${other}/landing_page`, { name: 'Theirs' })
    ).json();
    const res = await owner.post('/v1/rest/content', { landing_page_id: foreignLp.id });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors).toEqual([
      { field: 'body.landing_page_id', message: 'is not a landing page of this client' },
    ]);
  });

  it('archive and unarchive; the list hides archived items unless asked, and filters by status', async () => {
    const a = await create({ ...publishable, name: 'Archivable', status: 'published' });
    const archived = await owner.put(`/sc/content/${a.id}`, { is_archived: true });
    expect(archived.json().is_archived).toBe(true);
    const ids = async (query: string) =>
      ((await owner.get(`/sc/content${query}`)).json().items as ContentItem[]).map((i) => i.id);
    expect(await ids('')).not.toContain(a.id);
    expect(await ids('?archived=true')).toContain(a.id);
    expect(await ids('?archived=only')).toEqual([a.id]);
    expect(await ids('?status=draft')).not.toContain(a.id);
    const viaV1 = (await owner.get('/v1/rest/content?archived=only&status=published')).json();
    expect(viaV1).toMatchObject({ total: 1, items: [{ id: a.id, name: 'Archivable' }] });
    const unarchived = await owner.patch(`/v1/rest/content/${a.id}`, { is_archived: false });
    expect(unarchived.json().is_archived).toBe(false);
    expect(await ids('?status=published')).toContain(a.id);
    expect((await owner.get('/sc/content?archived=maybe')).statusCode).toBe(422);
    expect((await owner.get('/sc/content?status=gone')).statusCode).toBe(422);
    expect((await owner.get('/sc/content?template_id=9')).statusCode).toBe(422);
  });

  it('search matches names and texts as typed (the stored escaping is invisible)', async () => {
    const item = await create({ name: 'R&D <launch>' });
    const found = (await owner.get(`/sc/content?search=${encodeURIComponent('R&D <la')}`)).json();
    expect(found.items.map((i: ContentItem) => i.id)).toEqual([item.id]);
  });

  it('409 when updated_at shows the item was changed since it was read', async () => {
    const item = await create({});
    const first = (await owner.put(`/sc/content/${item.id}`, { title: 'A', updated_at: null })).json();
    const stale = await owner.put(`/sc/content/${item.id}`, { title: 'B', updated_at: null });
    expect(stale.statusCode).toBe(409);
    expect(stale.json().message).toMatch(/changed by someone else/);
    const fresh = await owner.put(`/sc/content/${item.id}`, { title: 'B', updated_at: first.updated_at });
    expect(fresh.statusCode).toBe(200);
  });

  it('DELETE removes an item, and refuses one a cadence day shows (409)', async () => {
    const gone = await create({});
    expect((await owner.delete(`/sc/content/${gone.id}`)).statusCode).toBe(204);
    expect((await owner.get(`/sc/content/${gone.id}`)).statusCode).toBe(404);
    expect((await owner.delete(`/v1/rest/content/${gone.id}`)).statusCode).toBe(404);

    const used = await create({});
    const [integration] = await app.db
      .insert(integrations)
      .values({ clientId: mine, source: 'fileforce' })
      .returning({ id: integrations.id });
    const [cadence] = await app.db
      .insert(cadences)
      .values({ clientId: mine, integrationId: integration!.id, externalId: 'c-1', name: 'Q3 Outbound' })
      .returning({ id: cadences.id });
    await app.db.insert(cadenceDays).values({
      clientId: mine,
      cadenceId: cadence!.id,
      dayNumber: 2,
      contentDays: [{ content_id: used.id, day_transition_actions: [] }],
    });
    const res = await owner.delete(`/v1/rest/content/${used.id}`);
    expect(res.statusCode).toBe(409);
    expect(res.json().message).toBe(
      'This content is used by Q3 Outbound (day 2). Remove it from there, or archive it instead.',
    );
  });

  it('content.write is needed to write; any member reads (a yellow_sdr has only reports.read)', async () => {
    const item = await create({});
    for (const res of [
      await sdr.post('/v1/rest/content', {}),
      await sdr.patch(`/v1/rest/content/${item.id}`, { title: 'x' }),
      await sdr.put(`/sc/content/${item.id}`, { title: 'x' }),
      await sdr.delete(`/sc/content/${item.id}`),
      await sdr.delete(`/v1/rest/content/${item.id}`),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe('Access Denied: your role does not have the content.write permission.');
    }
    expect((await sdr.get(`/sc/content/${item.id}`)).statusCode).toBe(200);
    expect((await sdr.get('/v1/rest/content')).statusCode).toBe(200);
    // A green_manager has content.write.
    expect((await manager.put(`/sc/content/${item.id}`, { title: 'by manager' })).statusCode).toBe(200);
  });

  it("another client's content is not found, whatever the call", async () => {
    const item = await create({});
    expect((await stranger.get(`/sc/content/${item.id}`)).statusCode).toBe(404);
    expect((await stranger.get(`/v1/rest/content/${item.id}`)).statusCode).toBe(404);
    expect((await stranger.put(`/sc/content/${item.id}`, { title: 'x' })).statusCode).toBe(404);
    expect((await stranger.patch(`/v1/rest/content/${item.id}`, { title: 'x' })).statusCode).toBe(404);
    expect((await stranger.delete(`/sc/content/${item.id}`)).statusCode).toBe(404);
    expect((await stranger.post('/v1/rest/content/pba', { content_id: item.id })).statusCode).toBe(422);
    const theirList = (await stranger.get('/sc/content?archived=true')).json();
    expect(theirList.items.map((i: ContentItem) => i.id)).not.toContain(item.id);
    // And naming my client while not a member of it is refused outright.
    expect((await stranger.get('/sc/content', { clientId: mine })).statusCode).toBe(403);
    expect((await stranger.post('/v1/rest/content', {}, { clientId: mine })).statusCode).toBe(403);
  });
});

describe('stored XSS: every HTML field is sanitised on the server (issue 8)', () => {
  const fields = ['hero_html', 'content_html', 'footer_html'] as const;

  it.each(XSS_CORPUS)(
    'content landing_page_payload and landing pages hold nothing executable: %s',
    async (payload) => {
      // An unclosed <svg> or <math> swallows what follows it, so the kept parts come first.
      const html = `<p>Before <span data-id="first_name">F</span></p>${payload}<p>After</p>`;
      const body = Object.fromEntries(fields.map((f) => [f, html]));
      const item = await create({ landing_page_payload: body });
      const lpRes = await owner.post(`/v1/rest/client/${mine}/landing_page`, {
        name: 'XSS',
        landing_page_payload: body,
      });
      expect(lpRes.statusCode).toBe(201);
      const lp = lpRes.json() as LandingPage;
      const [lpRow] = await app.db.select().from(landingPages).where(eq(landingPages.id, lp.id));
      const contentRow = await storedRow(item.id);
      for (const f of fields) {
        for (const stored of [
          contentRow.landingPagePayload[f],
          lpRow!.landingPagePayload[f],
          item.landing_page_payload[f],
          lp.landing_page_payload[f],
        ]) {
          expect(executableParts(stored), stored).toEqual([]);
          expect(stored).toContain('<p>Before <span data-id="first_name">F</span></p>');
        }
      }
      // Updates are sanitised too.
      const patched = await owner.patch(`/v1/rest/content/${item.id}`, {
        landing_page_payload: { hero_html: payload },
      });
      expect(executableParts(patched.json().landing_page_payload.hero_html)).toEqual([]);
      const lpPatched = await owner.patch(`/v1/rest/client/${mine}/landing_page/${lp.id}`, {
        landing_page_payload: { footer_html: payload },
      });
      expect(executableParts(lpPatched.json().landing_page_payload.footer_html)).toEqual([]);
    },
  );
});

describe('personalisation: /rest/content/pba and /rest/content/parse_pba_data (SPEC.md §5 data-id tags)', async () => {
  // A target: prospect Lee Park of Initech on a cadence, with rep Ann Smith.
  const [integration] = await app.db
    .insert(integrations)
    .values({ clientId: mine, source: 'salesloft' })
    .returning({ id: integrations.id });
  const [cadence] = await app.db
    .insert(cadences)
    .values({ clientId: mine, integrationId: integration!.id, externalId: 'pba', name: 'PBA' })
    .returning({ id: cadences.id });
  const [company] = await app.db
    .insert(companies)
    .values({ clientId: mine, integrationId: integration!.id, externalId: 'co', name: 'Initech & Sons' })
    .returning({ id: companies.id });
  const [prospect] = await app.db
    .insert(prospects)
    .values({
      clientId: mine,
      integrationId: integration!.id,
      externalId: 'p',
      firstName: 'Lee',
      lastName: 'Park',
      title: 'CTO',
      companyId: company!.id,
    })
    .returning({ id: prospects.id });
  const [rep] = await app.db
    .insert(salesReps)
    .values({
      clientId: mine,
      integrationId: integration!.id,
      externalId: 'r',
      firstName: 'Ann',
      lastName: 'Smith',
      title: 'AE',
      companyName: 'Acme',
      calendarUrl: 'https://cal.example/ann',
    })
    .returning({ id: salesReps.id });
  const [target] = await app.db
    .insert(targets)
    .values({ clientId: mine, cadenceId: cadence!.id, prospectId: prospect!.id, salesRepId: rep!.id })
    .returning({ id: targets.id });

  const tagged = await create({
    title:
      'Hi <span data-id="prospect_first_name" data-fallback="there">Prospect</span>, I am <span data-id="first_name" data-fallback="us">Rep</span>',
    image_text:
      '<span data-id="prospect_company_name" data-fallback="Your team">Company</span> & <span data-id="unknown" data-fallback="friends">X</span>!',
    primary_text: 'Plain <b>bold</b> text',
    assignee: { first_name: 'Default Rep', title: 'Founder' },
    landing_page_payload: {
      hero_html: '<h1>Hello <span data-id="prospect_first_name">there</span></h1>',
      content_html: '<p>Book <a href="https://cal.example">here</a> with <span data-id="title">t</span></p>',
    },
  });

  it('fills tags from the content assignee; a tag without a value shows its fallback', async () => {
    const res = await owner.post('/v1/rest/content/pba', { content_id: tagged.id });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      title: 'Hi there, I am Default Rep',
      image_text: 'Your team & friends!',
      primary_text: 'Plain <b>bold</b> text',
      landing_page_payload: {
        // A landing page tag stored without a fallback shows the tag's default ("there").
        hero_html: '<h1>Hello there</h1>',
        content_html: '<p>Book <a href="https://cal.example">here</a> with Founder</p>',
      },
    });
  });

  it("fills tags from a target's prospect and rep; HTML gets escaped values, texts plain ones", async () => {
    const res = await owner.post('/v1/rest/content/pba', {
      content_id: tagged.id,
      target_id: target!.id,
      values: { unknown: '<i>given</i>' },
    });
    expect(res.json()).toMatchObject({
      values: {
        first_name: 'Ann',
        prospect_first_name: 'Lee',
        prospect_company_name: 'Initech & Sons',
        title: 'AE',
      },
      title: 'Hi Lee, I am Ann',
      image_text: 'Initech & Sons & <i>given</i>!',
      landing_page_payload: {
        hero_html: '<h1>Hello Lee</h1>',
        content_html: '<p>Book <a href="https://cal.example">here</a> with AE</p>',
      },
    });
    const escaped = await owner.post('/v1/rest/content/pba', {
      content_id: tagged.id,
      values: { prospect_first_name: '<script>x</script>' },
    });
    expect(escaped.json().landing_page_payload.hero_html).toBe(
      '<h1>Hello &lt;script&gt;x&lt;/script&gt;</h1>',
    );
  });

  it('refuses a text whose tag has no fallback (issue 42): 422 naming the field, nothing written', async () => {
    const bare = 'Hi <span data-id="prospect_first_name">Prospect first name</span>';
    const blank = '<span data-id="first_name" data-fallback=" ">Rep</span>';
    for (const field of ['title', 'image_text', 'primary_text']) {
      const created = await owner.post('/v1/rest/content', { name: `bare ${field}`, [field]: bare });
      expect(created.statusCode).toBe(422);
      expect(created.json().errors).toEqual([
        { field: `body.${field}`, message: expect.stringContaining('needs a fallback') },
      ]);
      const updated = await owner.put(`/sc/content/${tagged.id}`, { name: 'changed', [field]: blank });
      expect(updated.statusCode).toBe(422);
      expect(fieldsOf(updated.json())).toEqual([`body.${field}`]);
    }
    const row = await storedRow(tagged.id);
    expect(row.name).toBeNull();
    expect(row.title).toContain('data-fallback=&quot;there&quot;');
  });

  it("renders stored content written before fallbacks with each tag's default, never emptied", async () => {
    const legacy = await create({});
    await app.db
      .update(content)
      .set({
        title: escapeText('<span data-id="prospect_first_name">Prospect first name</span>, twice as fast'),
      })
      .where(eq(content.id, legacy.id));
    const res = await owner.post('/v1/rest/content/pba', { content_id: legacy.id });
    expect(res.json().title).toBe('There, twice as fast');
    // The editor reads it as a tag, and the API still returns the stored text unchanged.
    expect((await owner.get(`/sc/content/${legacy.id}`)).json().title).toContain('data-id=');
  });

  it('refuses unknown content and targets with 422 naming the field', async () => {
    const noContent = await owner.post('/v1/rest/content/pba', { content_id: randomUUID() });
    expect(noContent.json().errors).toEqual([
      { field: 'body.content_id', message: 'is not a content item of this client' },
    ]);
    const noTarget = await owner.post('/v1/rest/content/pba', {
      content_id: tagged.id,
      target_id: randomUUID(),
    });
    expect(noTarget.json().errors).toEqual([
      { field: 'body.target_id', message: 'is not a target of this client' },
    ]);
    expect((await owner.post('/v1/rest/content/pba', { content_id: 'x' })).statusCode).toBe(422);
  });

  it('parse_pba_data lists the tags of a text with their labels and counts', async () => {
    const res = await sdr.post('/v1/rest/content/parse_pba_data', {
      text: 'Hi <span data-id="first_name">a</span> <span data-id="first_name">b</span> <b data-id="custom">c</b>',
    });
    expect(res.json()).toEqual({
      tags: [
        { id: 'first_name', label: 'Rep first name', source: 'assignee', count: 2 },
        { id: 'custom', label: null, source: null, count: 1 },
      ],
    });
    expect((await owner.post('/v1/rest/content/parse_pba_data', { text: 5 })).statusCode).toBe(422);
  });
});

describe('landing pages: /v1/rest/client/{id}/landing_page (SPEC.md §3 "Landing page")', () => {
  const base = `/v1/rest/client/${mine}/landing_page`;

  it('creates, reads, lists, changes and deletes a landing page', async () => {
    const res = await manager.post(base, {
      name: 'Spring & summer',
      landing_page_payload: {
        hero_html: '<h1>Hi</h1>',
        hero_img: 'https://cdn.example/hero.png',
        landing_button_name: 'Book <now>',
        landing_trigger_type: 'button',
      },
      colors: { background: '112233' },
      logo_url: '/files/0b8f3a6e-1111-4222-8333-444455556666',
      assignee: { first_name: 'Ann' },
    });
    expect(res.statusCode, res.body).toBe(201);
    const lp = res.json() as LandingPage;
    expect(lp).toMatchObject({
      client_id: mine,
      name: 'Spring & summer',
      colors: { background: '#112233', text: '#000000', accent: '#000000' },
      landing_page_payload: { hero_html: '<h1>Hi</h1>', landing_button_name: 'Book <now>' },
      is_archived: false,
    });
    expect(lp.public_path).toMatch(/^\/lp\/[1-9A-HJ-NP-Za-km-z]{16,22}$/);
    const [row] = await app.db.select().from(landingPages).where(eq(landingPages.id, lp.id));
    expect(row!.name).toBe('Spring &amp; summer');
    expect(row!.landingPagePayload.landing_button_name).toBe('Book &lt;now&gt;');

    expect((await sdr.get(`${base}/${lp.id}`)).json().name).toBe('Spring & summer');
    expect((await sdr.get(base)).json().items.map((i: LandingPage) => i.id)).toContain(lp.id);

    const changed = await owner.patch(`${base}/${lp.id}`, {
      name: 'Renamed',
      is_archived: true,
      updated_at: lp.updated_at,
    });
    expect(changed.json()).toMatchObject({
      name: 'Renamed',
      is_archived: true,
      landing_page_payload: { hero_html: '<h1>Hi</h1>' },
    });
    expect((await owner.patch(`${base}/${lp.id}`, { name: 'x', updated_at: lp.updated_at })).statusCode).toBe(
      409,
    );
    expect((await owner.get(base)).json().items.map((i: LandingPage) => i.id)).not.toContain(lp.id);
    expect((await owner.get(`${base}?archived=only`)).json().items.map((i: LandingPage) => i.id)).toEqual([
      lp.id,
    ]);

    // Content sending clicks to it keeps it from being deleted.
    const ad = await create({ name: 'Linked ad', landing_page_id: lp.id });
    const refused = await owner.delete(`${base}/${lp.id}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().message).toBe(
      'This landing page is used by "Linked ad". Choose another landing page there first.',
    );
    await owner.patch(`/v1/rest/content/${ad.id}`, { landing_page_id: null });
    expect((await owner.delete(`${base}/${lp.id}`)).statusCode).toBe(204);
    expect((await owner.get(`${base}/${lp.id}`)).statusCode).toBe(404);
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'body.name'],
      [{ name: '   ' }, 'body.name'],
      [{ name: 'x', colors: { text: '#GGGGGG' } }, 'body.colors.text'],
      [{ name: 'x', favicon_url: 'javascript:alert(1)' }, 'body.favicon_url'],
      [{ name: 'x', landing_page_payload: { content_html: 5 } }, 'body.landing_page_payload.content_html'],
      [{ name: 'x', is_archived: 1 }, 'body.is_archived'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.post(base, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res.json())).toEqual([field]);
    }
  });

  it('content.write is needed to write; another client cannot reach it', async () => {
    const lp = (await owner.post(base, { name: 'Mine' })).json() as LandingPage;
    for (const res of [
      await sdr.post(base, { name: 'x' }),
      await sdr.patch(`${base}/${lp.id}`, { name: 'x' }),
      await sdr.delete(`${base}/${lp.id}`),
    ]) {
      expect(res.statusCode).toBe(403);
    }
    const theirs = `/v1/rest/client/${other}/landing_page/${lp.id}`;
    expect((await stranger.get(theirs)).statusCode).toBe(404);
    expect((await stranger.patch(theirs, { name: 'x' })).statusCode).toBe(404);
    expect((await stranger.delete(theirs)).statusCode).toBe(404);
    // Naming my client in the path with their own x-client-id is refused.
    expect((await stranger.get(`${base}/${lp.id}`)).statusCode).toBe(403);
  });
});

describe('client settings: GET/PUT /v1/rest/client/{id}/settings and /sc/settings (SPEC.md §3 "Client settings")', () => {
  const v1 = `/v1/rest/client/${mine}/settings`;

  it('replies the defaults while none are saved, then saves the fields given; both calls share one record', async () => {
    const first = (await sdr.get('/sc/settings')).json();
    expect(first).toEqual({
      client_id: mine,
      colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
      facebook_cover_photo: '',
      facebook_name: '',
      facebook_page_url: '',
      facebook_profile_photo: '',
      favicon_url: '',
      website_url: '',
      logo_url: '',
      revenue_report_enabled: false,
      attribution_window_days: 90,
      landing_button_name: '',
      landing_page_domain: null,
      landing_trigger_field: '',
      landing_trigger_type: '',
      updated_at: null,
    });
    const saved = await owner.put(v1, {
      website_url: 'https://acme.example',
      colors: { background: '#0A0B0C', accent: 'ff0000', primary: '#00ff00' },
      facebook_name: 'Acme Robotics',
      landing_button_name: 'Book a demo',
    });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json()).toMatchObject({
      website_url: 'https://acme.example',
      colors: { background: '#0a0b0c', text: '#000000', accent: '#ff0000', primary: '#00ff00' },
      facebook_name: 'Acme Robotics',
    });
    const viaSc = await owner.put('/sc/settings', {
      revenue_report_enabled: true,
      attribution_window_days: 30,
    });
    expect(viaSc.json()).toMatchObject({
      revenue_report_enabled: true,
      attribution_window_days: 30,
      website_url: 'https://acme.example',
    });
    expect((await sdr.get(v1)).json()).toMatchObject({
      revenue_report_enabled: true,
      facebook_name: 'Acme Robotics',
    });
  });

  it('bad input is a 422 naming the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ colors: { background: 'fff' } }, 'body.colors.background'],
      [{ website_url: 'acme.example' }, 'body.website_url'],
      [{ logo_url: 'javascript:alert(1)' }, 'body.logo_url'],
      [{ revenue_report_enabled: 'yes' }, 'body.revenue_report_enabled'],
      [{ attribution_window_days: 0 }, 'body.attribution_window_days'],
      [{ attribution_window_days: 366 }, 'body.attribution_window_days'],
      [{ attribution_window_days: 1.5 }, 'body.attribution_window_days'],
      [{ facebook_name: 'x'.repeat(201) }, 'body.facebook_name'],
    ];
    for (const [body, field] of cases) {
      const res = await owner.put('/sc/settings', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res.json())).toEqual([field]);
    }
  });

  it('settings.write is needed to save (a green_manager has content.write only); other clients are apart', async () => {
    for (const res of [await manager.put('/sc/settings', {}), await manager.put(v1, {})]) {
      expect(res.statusCode).toBe(403);
      expect(res.json().message).toBe(
        'Access Denied: your role does not have the settings.write permission.',
      );
    }
    expect((await stranger.get('/sc/settings')).json().website_url).toBe('');
    expect((await stranger.get(v1)).statusCode).toBe(403);
    expect((await stranger.put(v1, { website_url: 'https://x.example' })).statusCode).toBe(403);
  });
});

describe('OpenAPI', () => {
  it('documents the content studio calls at /v1/docs', async () => {
    const doc = await app.inject('/v1/docs/json');
    expect(doc.statusCode).toBe(200);
    const paths = Object.keys(doc.json().paths as object);
    expect(paths).toEqual(
      expect.arrayContaining([
        '/v1/rest/content',
        '/v1/rest/content/{id}',
        '/v1/rest/content/pba',
        '/v1/rest/content/parse_pba_data',
        '/v1/rest/client/{clientId}/landing_page',
        '/v1/rest/client/{clientId}/landing_page/{id}',
        '/v1/rest/client/{clientId}/settings',
        '/v1/rest/client/{clientId}/uploads',
        '/sc/content',
        '/sc/content/{id}',
        '/sc/settings',
        '/sc/client/{clientId}/landing_domain',
        '/sc/client/{clientId}/landing_domain/check',
      ]),
    );
  });
});
