import { eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { adFieldsListReply, adFieldsSettingsSchema } from '@rally/shared/schemas/ad-delivery';
import { adFieldSettings, integrations } from '../../db/schema/index.ts';
import { createSecretBox } from '../../lib/crypto.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, signedIn } from '../../../test/http.ts';
import { startFakeSalesloft } from '../../../test/fakes/salesloft.ts';

/**
 * The four ad-fields routes (issue 38): success, bad input naming the field, missing permission,
 * foreign tenant, no session and no CSRF token. The vendor is the Salesloft fake on loopback.
 */
describe('ad fields routes', async () => {
  const salesloft = await startFakeSalesloft({
    seed: {
      users: [
        { id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@routes.example', team_admin: true },
        { id: 2, first_name: 'Rob', last_name: 'Rep', email: 'rob@routes.example' },
      ],
      customFields: [
        { name: 'Ad image' },
        { name: 'Ad click' },
        { name: 'Renewal date', value_type: 'date' },
        { name: 'Account tier', field_type: 'company' },
      ],
    },
  });
  afterAll(() => salesloft.close());
  // Writes would run against the fake in the background; this file is about the routes.
  const app = await createTestApp({
    workers: false,
    env: {
      SALESLOFT_CLIENT_ID: salesloft.clientId,
      SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
      SALESLOFT_API_URL: salesloft.apiUrl,
      SALESLOFT_AUTH_URL: salesloft.authUrl,
    },
  });
  const box = createSecretBox(app.config.appSecret);
  const connect = async (clientId: string, userId: number) => {
    const [row] = await app.db
      .insert(integrations)
      .values({
        clientId,
        source: 'salesloft',
        accountName: 'Team',
        credentialsEnc: box.encrypt(JSON.stringify(oauthCredentialsFrom(salesloft.grantTokens(userId)))),
      })
      .returning({ id: integrations.id });
    return row!.id;
  };

  const mine = await makeClient(app, 'Mine');
  const notAdmin = await makeClient(app, 'Rep token');
  const foreign = await makeClient(app, 'Foreign');
  const mineId = await connect(mine, 1);
  const repId = await connect(notAdmin, 2);
  const foreignId = await connect(foreign, 1);
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner', [notAdmin]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
  const { browser: manager } = await signedIn(app, { [mine]: 'green_manager' });
  const base = `/v1/rest/client/${mine}/ad_fields`;

  it('GET lists each connection of the six sources for any member, with nothing set up yet', async () => {
    const res = await sdr.get(base);
    expect(res.statusCode).toBe(200);
    const body = adFieldsListReply.parse(res.json());
    expect(body.items).toEqual([
      {
        integration_id: mineId,
        source: 'salesloft',
        image_field: null,
        click_field: null,
        enabled: false,
        status: 'not_set_up',
        can_create_fields: true,
        instructions: null,
        targets_written: 0,
        targets_pending: 0,
        targets_failed: 0,
        last_written_at: null,
        last_error: null,
      },
    ]);
  });

  it('GET refuses another client in the path, a visitor without a session, and a bad client id', async () => {
    expect((await sdr.get(`/v1/rest/client/${foreign}/ad_fields`, { clientId: foreign })).statusCode).toBe(
      403,
    );
    expect((await sdr.get(`/v1/rest/client/${foreign}/ad_fields`)).statusCode).toBe(403);
    expect((await new Browser(app).get(base, { clientId: mine })).statusCode).toBe(401);
    const bad = await sdr.get('/v1/rest/client/not-a-uuid/ad_fields');
    expect(bad.statusCode).toBe(403);
  });

  it("GET …/available asks the vendor for the person's text fields (not date or company fields)", async () => {
    const res = await owner.get(`${base}/${mineId}/available`);
    expect(res.statusCode).toBe(200);
    expect(res.json().items).toEqual([
      { name: 'Ad click', label: 'Ad click', object: null },
      { name: 'Ad image', label: 'Ad image', object: null },
    ]);
  });

  it('…/available needs integration.write, a connection of this client and a numeric id', async () => {
    expect((await sdr.get(`${base}/${mineId}/available`)).statusCode).toBe(403);
    expect((await owner.get(`${base}/${foreignId}/available`)).statusCode).toBe(404);
    const bad = await owner.get(`${base}/abc/available`);
    expect(bad.statusCode).toBe(422);
    expect(bad.json().message).toMatch(/^params\.integrationId/);
  });

  it('PUT sets the two fields and turns writing on', async () => {
    const res = await owner.put(`${base}/${mineId}`, {
      image_field: 'Ad image',
      click_field: 'Ad click',
      enabled: true,
    });
    expect(res.statusCode).toBe(200);
    const row = adFieldsSettingsSchema.parse(res.json());
    expect(row).toMatchObject({ image_field: 'Ad image', click_field: 'Ad click', enabled: true });
    expect(['ready', 'writing']).toContain(row.status);
    const [stored] = await app.db
      .select()
      .from(adFieldSettings)
      .where(eq(adFieldSettings.integrationId, mineId));
    expect(stored).toMatchObject({
      clientId: mine,
      imageField: 'Ad image',
      clickField: 'Ad click',
      enabled: true,
    });
    // Turned off: paused, fields kept.
    const off = await owner.put(`${base}/${mineId}`, {
      image_field: 'Ad image',
      click_field: 'Ad click',
      enabled: false,
    });
    expect(off.json()).toMatchObject({ status: 'paused', enabled: false, image_field: 'Ad image' });
  });

  it('PUT names the field that is missing, repeated, or not a field the vendor offers', async () => {
    const missing = await owner.put(`${base}/${mineId}`, { image_field: 'Ad image', enabled: true });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().message).toMatch(/^body\.click_field/);
    const same = await owner.put(`${base}/${mineId}`, {
      image_field: 'Ad image',
      click_field: 'Ad image',
      enabled: true,
    });
    expect(same.statusCode).toBe(422);
    expect(same.json().message).toMatch(/^body\.click_field: must be another field/);
    const unknown = await owner.put(`${base}/${mineId}`, {
      image_field: 'Renewal date',
      click_field: 'Ad click',
      enabled: true,
    });
    expect(unknown.statusCode).toBe(422);
    expect(unknown.json().message).toMatch(/^body\.image_field: is not a Salesloft field/);
    const blank = await owner.put(`${base}/${mineId}`, {
      image_field: '  ',
      click_field: 'Ad click',
      enabled: true,
    });
    expect(blank.statusCode).toBe(422);
    expect(blank.json().message).toMatch(/^body\.image_field/);
  });

  it('PUT needs integration.write, a CSRF token and a connection of this client', async () => {
    const body = { image_field: 'Ad image', click_field: 'Ad click', enabled: true };
    expect((await manager.put(`${base}/${mineId}`, body)).statusCode).toBe(403);
    expect((await sdr.put(`${base}/${mineId}`, body)).statusCode).toBe(403);
    expect((await owner.put(`${base}/${mineId}`, body, { csrf: false })).statusCode).toBe(403);
    expect((await owner.put(`${base}/${foreignId}`, body)).statusCode).toBe(404);
    expect((await owner.put(`/v1/rest/client/${foreign}/ad_fields/${foreignId}`, body)).statusCode).toBe(403);
    const [theirs] = await app.db
      .select()
      .from(adFieldSettings)
      .where(eq(adFieldSettings.integrationId, foreignId));
    expect(theirs).toBeUndefined();
  });

  it('POST …/create answers 422 with what to create when Salesloft refuses (a non-admin connected it)', async () => {
    const res = await owner.post(`/v1/rest/client/${notAdmin}/ad_fields/${repId}/create`, undefined, {
      clientId: notAdmin,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(/only a Salesloft admin/);
    expect(res.json().instructions).toMatch(/Settings › Custom Fields › People/);
  });

  it("POST …/create makes the two person fields through Salesloft's API, sets them and turns writing on", async () => {
    const res = await owner.post(`${base}/${mineId}/create`);
    expect(res.statusCode).toBe(200);
    expect(adFieldsSettingsSchema.parse(res.json())).toMatchObject({
      image_field: 'Rally ad image URL',
      click_field: 'Rally ad click URL',
      enabled: true,
    });
    const fields = (await owner.get(`${base}/${mineId}/available`))
      .json()
      .items.map((f: { name: string }) => f.name);
    expect(fields).toEqual(expect.arrayContaining(['Rally ad image URL', 'Rally ad click URL']));
    // Asked again: the fields are found, not made twice.
    expect((await owner.post(`${base}/${mineId}/create`)).statusCode).toBe(200);
    expect(
      salesloft.requests.filter(
        (r) => r.method === 'POST' && r.path.startsWith('/v2/custom_fields') && r.status === 200,
      ).length,
    ).toBe(2);
  });

  it('POST …/create needs integration.write, CSRF, and a connection of this client', async () => {
    expect((await manager.post(`${base}/${mineId}/create`)).statusCode).toBe(403);
    expect((await owner.post(`${base}/${mineId}/create`, undefined, { csrf: false })).statusCode).toBe(403);
    expect((await owner.post(`${base}/${foreignId}/create`)).statusCode).toBe(404);
    expect((await owner.post(`${base}/0/create`)).statusCode).toBe(422);
  });
});
