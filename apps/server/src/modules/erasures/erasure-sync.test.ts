import { describe, expect, it } from 'vitest';
import { and, eq, isNull, sql } from 'drizzle-orm';
import { crmContacts, integrations, prospects, suppressions } from '../../db/schema/index.ts';
import { startFakeHubSpot } from '../../../test/fakes/hubspot.ts';
import { crmAdFieldsWorld } from '../../../test/ad-fields-crm-kit.ts';
import { startFakeSalesloft } from '../../../test/fakes/salesloft.ts';
import { sequenceAdFieldsWorld } from '../../../test/ad-fields-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';
import { unsuppress } from '../suppressions/service.ts';
import { erase } from './service.ts';

/**
 * Issue 44: an erased person is kept as a keyed hash "so a later sync does not bring the person back
 * unless they are added again by hand". A Salesloft sync (its fake) after the erasure reads the
 * person's membership again and stores nothing of them; once an owner takes the erasure entry off
 * the suppression list, the next sync brings them in.
 */
describe('erasure and a later sync', () => {
  it('a sync leaves the erased person out until the entry is removed by hand', async () => {
    const salesloft = await startFakeSalesloft({
      seed: {
        users: [{ id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@sl.example', team_admin: true }],
        people: [
          { id: 1, first_name: 'Gone', last_name: 'Person', email_address: 'Gone.Person@sl.example' },
          { id: 2, first_name: 'Oka', last_name: 'Y', email_address: 'ok@sl.example' },
        ],
        cadences: [{ id: 1, name: 'Cadence', owner_id: 1, steps: [{ id: 10, day: 1 }] }],
        memberships: [
          { id: 1, cadence_id: 1, person_id: 1, user_id: 1, day: 1 },
          { id: 2, cadence_id: 1, person_id: 2, user_id: 1, day: 1 },
        ],
      },
    });
    const app = await createTestApp({
      workers: false,
      env: {
        SALESLOFT_CLIENT_ID: salesloft.clientId,
        SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
        SALESLOFT_API_URL: salesloft.apiUrl,
        SALESLOFT_AUTH_URL: salesloft.authUrl,
      },
      adapters: { retry: { retries: 0, sleep: async () => {} } },
    });
    const people = async () =>
      (
        await app.db
          .select({ email: prospects.email })
          .from(prospects)
          .where(eq(prospects.clientId, clientId))
      )
        .map((p) => p.email?.toLowerCase())
        .sort();
    let clientId = '';
    try {
      clientId = await makeClient(app, 'Vendors');
      const sl = await sequenceAdFieldsWorld(app, {
        clientId,
        source: 'salesloft',
        credentials: oauthCredentialsFrom(salesloft.grantTokens()),
      });
      // Read every membership again on each sync, as a first sync does.
      const fromScratch = () =>
        app.db.update(integrations).set({ syncCursor: {} }).where(eq(integrations.clientId, clientId));
      await sl.sync();
      expect(await people()).toContain('gone.person@sl.example');

      const done = await erase(app.db, app.suppressions.key, clientId, 'gone.person@SL.example', {
        actor: null,
      });
      expect(done?.erasure.counts.prospects).toBe(1);
      await fromScratch();
      await sl.sync();
      expect(await people()).not.toContain('gone.person@sl.example');
      expect(await people()).toContain('ok@sl.example');
      const [left] = (
        (await app.db.execute(
          sql`select count(*)::int as n from prospects where client_id = ${clientId} and email ilike '%gone.person%'`,
        )) as unknown as { rows: { n: number }[] }
      ).rows;
      expect(Number(left!.n)).toBe(0);

      // By hand: the owner takes the erasure entry off the list; the next sync brings them in.
      const [entry] = await app.db
        .select({ id: suppressions.id })
        .from(suppressions)
        .where(and(eq(suppressions.clientId, clientId), isNull(suppressions.removedAt)));
      expect(
        await unsuppress(app.db, clientId, entry!.id, { reason: 'Asked to be added back', by: null }),
      ).not.toBeNull();
      await fromScratch();
      await sl.sync();
      expect(await people()).toContain('gone.person@sl.example');
    } finally {
      await app.close();
      await salesloft.close();
    }
  }, 120_000);

  it('a CRM sync does not store the erased contact again', async () => {
    const hubspot = await startFakeHubSpot();
    const app = await createTestApp({
      workers: false,
      env: {
        HUBSPOT_CLIENT_ID: hubspot.clientId,
        HUBSPOT_CLIENT_SECRET: hubspot.clientSecret,
        HUBSPOT_API_URL: hubspot.apiUrl,
        HUBSPOT_AUTH_URL: hubspot.authUrl,
      },
      adapters: { retry: { retries: 0, sleep: async () => {} } },
    });
    try {
      const clientId = await makeClient(app, 'CRM');
      const world = await crmAdFieldsWorld(app, {
        clientId,
        source: 'hubspot',
        credentials: oauthCredentialsFrom(hubspot.issueTokens()),
      });
      hubspot.addRecord('contacts', { email: 'Gone.Contact@hs.example', firstname: 'Gone' });
      hubspot.addRecord('contacts', { email: 'stay@hs.example', firstname: 'Stay' });
      const contacts = async () =>
        (
          await app.db
            .select({ email: crmContacts.email })
            .from(crmContacts)
            .where(eq(crmContacts.clientId, clientId))
        )
          .map((c) => c.email?.toLowerCase())
          .sort();
      await world.sync();
      expect(await contacts()).toEqual(['gone.contact@hs.example', 'stay@hs.example']);
      const done = await erase(app.db, app.suppressions.key, clientId, 'gone.contact@hs.example', {
        actor: null,
      });
      expect(done?.erasure.counts.crm_contacts).toBe(1);
      await app.db
        .update(integrations)
        .set({ syncCursor: {} })
        .where(eq(integrations.id, world.integrationId));
      await world.sync();
      expect(await contacts()).toEqual(['stay@hs.example']);
    } finally {
      await app.close();
      await hubspot.close();
    }
  }, 120_000);
});
