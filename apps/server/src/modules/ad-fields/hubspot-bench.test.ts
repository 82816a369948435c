import { afterAll, describe, expect, it } from 'vitest';
import { crmContacts, prospects, targets } from '../../db/schema/index.ts';
import { crmAdFieldsWorld } from '../../../test/ad-fields-crm-kit.ts';
import { makeIntegration } from '../../../test/engagement.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { startFakeHubSpot } from '../../../test/fakes/hubspot.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';

/**
 * Issue 38's figure, run on demand only (AD_FIELDS_BENCH=100000, the number of contacts): the
 * write-back of every contact's ad fields to the fake HubSpot (seconds, requests) beside plain
 * paging of the same contacts (GET /crm/v3/objects/contacts, 100 a page). Prospects, targets and
 * CRM contacts are inserted directly, as a sync would leave them.
 */
const N = Number(process.env.AD_FIELDS_BENCH ?? 0);

describe.runIf(N > 0)(`bench: ${N} HubSpot contacts`, async () => {
  const hubspot = await startFakeHubSpot();
  afterAll(() => hubspot.close());
  const app = await createTestApp({
    workers: false,
    env: {
      HUBSPOT_CLIENT_ID: hubspot.clientId,
      HUBSPOT_CLIENT_SECRET: hubspot.clientSecret,
      HUBSPOT_API_URL: hubspot.apiUrl,
      HUBSPOT_AUTH_URL: hubspot.authUrl,
    },
  });
  const clientId = await makeClient(app, 'Bench');
  const cadenceIntegration = await makeIntegration(app, clientId);
  const world = await crmAdFieldsWorld(app, {
    clientId,
    source: 'hubspot',
    credentials: oauthCredentialsFrom(hubspot.issueTokens()),
  });
  const cadence = await world.cadence('Bench');
  const ids: string[] = [];
  for (let i = 0; i < N; i++) {
    ids.push(hubspot.addRecord('contacts', { email: `b${i}@bench.example`, firstname: `B${i}` }).id);
  }
  for (let i = 0; i < N; i += 5000) {
    const part = ids.slice(i, i + 5000);
    const made = await app.db
      .insert(prospects)
      .values(
        part.map((_, k) => ({
          clientId,
          integrationId: cadenceIntegration,
          externalId: `bench-${i + k}`,
          email: `b${i + k}@bench.example`,
        })),
      )
      .returning({ id: prospects.id });
    await app.db
      .insert(targets)
      .values(made.map((p) => ({ clientId, cadenceId: cadence, prospectId: p.id })));
    await app.db.insert(crmContacts).values(
      part.map((externalId, k) => ({
        clientId,
        integrationId: world.integrationId,
        externalId,
        email: `b${i + k}@bench.example`,
        prospectId: made[k]!.id,
      })),
    );
  }
  await world.enable('rally_ad_image_url', 'rally_ad_click_url');

  it(
    'writes every contact once, in requests of 100, and compares with paging the same contacts',
    { timeout: 900_000 },
    async () => {
      // The two properties, as "Create the fields for me" would make them.
      const port = app.crmSync.adapters.hubspot!.adFields!;
      let creds = oauthCredentialsFrom(hubspot.issueTokens());
      await port.create!({
        credentials: () => creds,
        saveCredentials: async (c) => void (creds = c as typeof creds),
      });

      hubspot.clearRequests();
      let t = performance.now();
      await world.write();
      const writeSeconds = (performance.now() - t) / 1000;
      const writeRequests = hubspot.requests.length;
      expect(hubspot.batchUpdates()).toBe(Math.ceil(N / 100));

      const token = hubspot.issueTokens().access_token;
      hubspot.clearRequests();
      t = performance.now();
      let after: string | undefined;
      let read = 0;
      do {
        const res = await fetch(
          `${hubspot.apiUrl}/crm/v3/objects/contacts?limit=100${after ? `&after=${after}` : ''}`,
          { headers: { authorization: `Bearer ${token}` } },
        );
        const page = (await res.json()) as { results: unknown[]; paging?: { next?: { after: string } } };
        read += page.results.length;
        after = page.paging?.next?.after;
      } while (after);
      const pageSeconds = (performance.now() - t) / 1000;
      expect(read).toBe(N);
      console.log(
        `ad-fields bench (${N} contacts): write-back ${writeSeconds.toFixed(1)} s, ${writeRequests} requests; ` +
          `plain paging ${pageSeconds.toFixed(1)} s, ${hubspot.requests.length} requests`,
      );
    },
  );
});
