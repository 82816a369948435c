import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import {
  cadenceDays,
  cadences,
  crmClientSettings,
  crmLists,
  crmRecordTypes,
  crmStages,
  integrations,
} from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';

describe('CRM reads: stages, record types, selected and valuable stages, lists (issue 16)', async () => {
  const app = await createTestApp();
  const mine = await makeClient(app, 'Mine');
  const foreign = await makeClient(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });

  async function crm(clientId: string, source: 'salesforce' | 'hubspot') {
    const [i] = await app.db.insert(integrations).values({ clientId, source }).returning();
    const stages = await app.db
      .insert(crmStages)
      .values(
        ['Prospecting', 'Proposal', 'Closed Won'].map((key, n) => ({
          clientId,
          integrationId: i!.id,
          key,
          label: key,
          sortOrder: 3 - n, // stored out of order on purpose
          probability: [10, 75, 100][n],
          isClosed: key === 'Closed Won',
          isWon: key === 'Closed Won',
        })),
      )
      .returning();
    return { integration: i!, stages };
  }
  const sf = await crm(mine, 'salesforce');
  const hs = await crm(mine, 'hubspot');
  const other = await crm(foreign, 'salesforce');
  await app.db.insert(crmRecordTypes).values([
    { clientId: mine, integrationId: sf.integration.id, externalId: '012000000000001AAA', name: 'Renewal' },
    {
      clientId: foreign,
      integrationId: other.integration.id,
      externalId: '012000000000002AAA',
      name: 'Theirs',
    },
  ]);
  await app.db.insert(crmLists).values([
    {
      clientId: mine,
      integrationId: sf.integration.id,
      externalId: '701A',
      name: 'Webinar 100%',
      kind: 'campaign',
      memberCount: 12,
    },
    { clientId: mine, integrationId: hs.integration.id, externalId: '55', name: 'Expo leads', kind: 'list' },
    {
      clientId: foreign,
      integrationId: other.integration.id,
      externalId: '701B',
      name: 'Foreign list',
      kind: 'campaign',
    },
  ]);

  it("GET stages lists the client's catalogue per CRM and pipeline in order; filters by integration", async () => {
    const res = await sdr.get(`/v1/rest/client/${mine}/crm/opportunity/stage`);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toHaveLength(6);
    expect(body.slice(0, 3).map((s: { label: string }) => s.label)).toEqual([
      'Closed Won',
      'Proposal',
      'Prospecting',
    ]);
    expect(body[0]).toEqual({
      id: expect.any(String),
      integration_id: sf.integration.id,
      source: 'salesforce',
      pipeline_key: 'default',
      pipeline_label: 'Default',
      key: 'Closed Won',
      label: 'Closed Won',
      order: 1,
      probability: 100,
      is_closed: true,
      is_won: true,
      is_active: true,
    });
    const only = await sdr.get(
      `/v1/rest/client/${mine}/crm/opportunity/stage?integration_id=${hs.integration.id}`,
    );
    expect(only.json().map((s: { source: string }) => s.source)).toEqual(['hubspot', 'hubspot', 'hubspot']);
    const bad = await sdr.get(`/v1/rest/client/${mine}/crm/opportunity/stage?integration_id=abc`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('querystring.integration_id');
  });

  it('GET record types: only the client’s own', async () => {
    const res = await sdr.get(`/v1/rest/client/${mine}/crm/record_type`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        id: expect.any(String),
        integration_id: sf.integration.id,
        source: 'salesforce',
        external_id: '012000000000001AAA',
        name: 'Renewal',
        developer_name: '',
        is_active: true,
      },
    ]);
  });

  for (const [path, column] of [
    ['opportunity/selected_stages', 'selectedStageIds'],
    ['pipeline/stages/valuable', 'valuableStageIds'],
  ] as const) {
    it(`GET and PUT ${path}: empty at first, replaced in the order given, 422 naming the field`, async () => {
      const url = `/v1/rest/client/${mine}/${path}`;
      expect((await sdr.get(url)).json()).toEqual({ stage_ids: [], stages: [] });
      const ids = [sf.stages[2]!.id, hs.stages[0]!.id];
      const put = await owner.put(url, { stage_ids: ids });
      expect(put.statusCode).toBe(200);
      expect(put.json().stage_ids).toEqual(ids);
      expect(put.json().stages.map((s: { key: string }) => s.key)).toEqual(['Closed Won', 'Prospecting']);
      expect((await sdr.get(url)).json().stage_ids).toEqual(ids);

      // A stage of another client, or not a UUID: 422 naming stage_ids, nothing written.
      for (const stage_ids of [[sf.stages[0]!.id, other.stages[0]!.id], ['nope']]) {
        const bad = await owner.put(url, { stage_ids });
        expect(bad.statusCode).toBe(422);
        expect(bad.json().errors[0].field).toMatch(/^body\.stage_ids/);
      }
      const missing = await owner.put(url, {});
      expect(missing.statusCode).toBe(422);
      expect(missing.json().errors[0].field).toBe('body.stage_ids');
      const [row] = await app.db.select().from(crmClientSettings).where(eq(crmClientSettings.clientId, mine));
      expect(row![column]).toEqual(ids);

      // An SDR cannot change them; signed out is 401; another client's path is refused.
      expect((await sdr.put(url, { stage_ids: [] })).statusCode).toBe(403);
      expect((await new Browser(app).get(url, { clientId: mine })).statusCode).toBe(401);
      const theirs = await owner.put(
        `/v1/rest/client/${foreign}/${path}`,
        { stage_ids: [] },
        { clientId: foreign },
      );
      expect(theirs.statusCode).toBe(403);
      expect((await owner.put(url, { stage_ids: [] })).json()).toEqual({ stage_ids: [], stages: [] });
    });
  }

  it('GET /rest/crm_list pages, searches and filters the client’s lists; 422 on a bad page size', async () => {
    const res = await sdr.get('/v1/rest/crm_list');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ total: 2, page: 1, page_size: 50 });
    expect(res.json().items.map((l: { name: string }) => l.name)).toEqual(['Expo leads', 'Webinar 100%']);
    expect(res.json().items[1]).toMatchObject({
      source: 'salesforce',
      kind: 'campaign',
      member_type: 'contact',
      member_count: 12,
      external_id: '701A',
    });
    // "%" is a literal in the search, not a wildcard.
    expect((await sdr.get('/v1/rest/crm_list?search=100%25')).json().items).toHaveLength(1);
    expect((await sdr.get('/v1/rest/crm_list?search=%25%25')).json().items).toHaveLength(0);
    expect((await sdr.get('/v1/rest/crm_list?source=hubspot')).json().items[0].name).toBe('Expo leads');
    const page2 = (await sdr.get('/v1/rest/crm_list?page=2&page_size=1')).json();
    expect(page2).toMatchObject({ total: 2, page: 2, page_size: 1 });
    expect(page2.items.map((l: { name: string }) => l.name)).toEqual(['Webinar 100%']);
    const bad = await sdr.get('/v1/rest/crm_list?page_size=1000');
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('querystring.page_size');
    const badSource = await sdr.get('/v1/rest/crm_list?source=pipedrive');
    expect(badSource.json().errors[0].field).toBe('querystring.source');
    expect((await new Browser(app).get('/v1/rest/crm_list', { clientId: mine })).statusCode).toBe(401);
    expect((await sdr.get('/v1/rest/crm_list', { clientId: foreign })).statusCode).toBe(403);
  });

  it('a foreign client’s stages and record types are refused (path and header checked)', async () => {
    for (const p of ['crm/opportunity/stage', 'crm/record_type', 'opportunity/selected_stages']) {
      expect((await sdr.get(`/v1/rest/client/${foreign}/${p}`)).statusCode).toBe(403);
      expect((await sdr.get(`/v1/rest/client/${foreign}/${p}`, { clientId: foreign })).statusCode).toBe(403);
    }
  });

  it('GET /integration/crm/{platform}/client/{id}/cadences (and /sequences): cadences with their step days', async () => {
    const [sl] = await app.db
      .insert(integrations)
      .values({ clientId: mine, source: 'salesloft' })
      .returning();
    const [c] = await app.db
      .insert(cadences)
      .values({ clientId: mine, integrationId: sl!.id, externalId: '77', name: 'Q3 Outbound' })
      .returning();
    await app.db.insert(cadenceDays).values([
      { clientId: mine, cadenceId: c!.id, dayNumber: 3 },
      { clientId: mine, cadenceId: c!.id, dayNumber: 1 },
    ]);
    for (const path of ['cadences', 'sequences']) {
      const res = await sdr.get(`/v1/integration/crm/salesloft/client/${mine}/${path}`);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual([
        {
          id: c!.id,
          integration_id: sl!.id,
          external_id: '77',
          name: 'Q3 Outbound',
          status: 'active',
          is_super: false,
          last_synced_at: null,
          steps: [
            { day_number: 1, content_ids: [] },
            { day_number: 3, content_ids: [] },
          ],
        },
      ]);
    }
    expect((await sdr.get(`/v1/integration/crm/outreach/client/${mine}/sequences`)).json()).toEqual([]);
    const bad = await sdr.get(`/v1/integration/crm/salesforce/client/${mine}/cadences`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('params.source');
    expect(
      (
        await new Browser(app).get(`/v1/integration/crm/salesloft/client/${mine}/cadences`, {
          clientId: mine,
        })
      ).statusCode,
    ).toBe(401);
    expect(
      (await sdr.get(`/v1/integration/crm/salesloft/client/${foreign}/cadences`, { clientId: foreign }))
        .statusCode,
    ).toBe(403);
  });
});

describe('CRM connect on an installation without the vendor’s OAuth app (issue 42 item 3)', async () => {
  const app = await createTestApp();
  const mine = await makeClient(app, 'Mine');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });

  it('says it is not available here, in the user’s words, not which variables to set', async () => {
    for (const [source, label] of [
      ['salesforce', 'Salesforce'],
      ['hubspot', 'HubSpot'],
    ] as const) {
      const res = await owner.get(
        `/v1/integration/crm/${source}/client/${mine}/redirect?return_to=integration`,
        {
          clientId: mine,
        },
      );
      expect(res.statusCode).toBe(400);
      expect(res.json().message).toBe(
        `${label} is not available on this installation — ask your administrator.`,
      );
      expect(res.body).not.toContain('CLIENT_ID');
    }
  });
});

describe('a demo connection says so (issue 42 item 4)', async () => {
  const app = await createTestApp();
  const mine = await makeClient(app, 'Mine');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });

  it('is_demo: active with no credentials (the seeded sample); a real connection or a file is not', async () => {
    await app.db.insert(integrations).values([
      { clientId: mine, source: 'salesforce', accountName: 'Salesforce demo org (sample data)' },
      { clientId: mine, source: 'hubspot', credentialsEnc: 'sealed-tokens' },
      { clientId: mine, source: 'fileforce' },
    ]);
    const res = await owner.get(`/v1/rest/client/${mine}/integrations`, { clientId: mine });
    expect(res.statusCode).toBe(200);
    const bySource = Object.fromEntries(
      (res.json() as { source: string; is_demo: boolean }[]).map((i) => [i.source, i.is_demo]),
    );
    expect(bySource).toEqual({ salesforce: true, hubspot: false, fileforce: false });
  });
});
