import { describe, expect, it } from 'vitest';
import { integrations } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';

describe('clients', async () => {
  const app = await createTestApp();
  const agency = await makeClient(app, 'Agency');
  const other = await makeClient(app, 'Zeta');
  const { browser } = await signedIn(app, { [agency]: 'purple_owner' });

  it('GET /v1/rest/client lists only the clients the user belongs to', async () => {
    const res = await browser.get('/v1/rest/client');
    expect(res.json()).toEqual([
      { id: agency, name: 'Agency', parent_id: null, role: 'purple_owner', is_default: true },
    ]);
  });

  it('POST creates a client under the current one, with the creator as owner; 422 without a name', async () => {
    const res = await browser.post('/v1/rest/client', { name: '  Initech  ' });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ name: 'Initech', parent_id: agency, role: 'purple_owner' });
    expect((await browser.get('/v1/rest/client')).json().map((c: { name: string }) => c.name)).toEqual([
      'Agency',
      'Initech',
    ]);
    const bad = await browser.post('/v1/rest/client', { name: '' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.name');
  });

  it("GET integrations returns the client's own (SPEC.md §3 Integration fields), 403 for another client", async () => {
    await app.db.insert(integrations).values([
      { clientId: agency, source: 'salesloft' },
      { clientId: other, source: 'hubspot' },
    ]);
    const res = await browser.get(`/v1/rest/client/${agency}/integrations`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([
      {
        client_id: agency,
        id: expect.any(Number),
        source: 'salesloft',
        is_active: true,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        // Sync state for the connections screen (issue 6), beyond SPEC.md §3's fields.
        account_name: null,
        last_error: null,
        access_note: null,
        // No credentials behind an active connection: sample data (issue 42 item 4).
        is_demo: true,
        // The vendor's API calls used against its allocation (issue 40 item 7): not told yet.
        api_usage: null,
        is_syncing: false,
        last_synced_at: null,
        sync_progress: null,
      },
    ]);
    expect((await browser.get(`/v1/rest/client/${other}/integrations`, { clientId: other })).statusCode).toBe(
      403,
    );
  });

  it('a member without client.write cannot create clients', async () => {
    const { browser: sdr } = await signedIn(app, { [agency]: 'yellow_sdr' });
    expect((await sdr.post('/v1/rest/client', { name: 'Nope' })).statusCode).toBe(403);
  });
});
