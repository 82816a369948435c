import { describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { suppressions } from '../../db/schema/index.ts';
import { startFakeOutreach } from '../../../test/fakes/outreach.ts';
import { startFakeSalesloft } from '../../../test/fakes/salesloft.ts';
import { sequenceAdFieldsWorld } from '../../../test/ad-fields-kit.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { oauthCredentialsFrom } from '../integrations/vendor-http.ts';

/**
 * Issue 44: opt-outs already in the connected sales engagement platforms are honoured on sync.
 * Salesloft's person `do_not_contact` and Outreach's prospect `optedOut` (both in the vendors'
 * OpenAPI files under test/vendor-specs) put the address on the client's suppression list, source
 * opt_out; the others are not touched.
 */
describe('vendor opt-outs on sync', () => {
  it('Salesloft do_not_contact and Outreach optedOut suppress the person in the client', async () => {
    const salesloft = await startFakeSalesloft({
      seed: {
        users: [{ id: 1, first_name: 'Ada', last_name: 'Admin', email: 'ada@sl.example', team_admin: true }],
        people: [
          {
            id: 1,
            first_name: 'Dee',
            last_name: 'Nc',
            email_address: 'dnc@sl.example',
            do_not_contact: true,
          },
          { id: 2, first_name: 'Oka', last_name: 'Y', email_address: 'ok@sl.example' },
        ],
        cadences: [{ id: 1, name: 'Cadence', owner_id: 1, steps: [{ id: 10, day: 1 }] }],
        memberships: [
          { id: 1, cadence_id: 1, person_id: 1, user_id: 1, day: 1 },
          { id: 2, cadence_id: 1, person_id: 2, user_id: 1, day: 1 },
        ],
      },
    });
    const outreach = await startFakeOutreach({
      data: {
        users: [{ id: 11, firstName: 'Ana', lastName: 'Diaz', email: 'ana@or.example' }],
        sequences: [{ id: 21, name: 'Sequence', ownerId: 11, steps: [{ id: 210 }] }],
        prospects: [
          { id: 31, firstName: 'Opt', lastName: 'Out', emails: ['out@or.example'], optedOut: true },
          { id: 32, firstName: 'Stay', lastName: 'In', emails: ['in@or.example'] },
        ],
        sequenceStates: [31, 32].map((p, i) => ({
          id: 41 + i,
          sequenceId: 21,
          prospectId: p,
          userId: 11,
          stepOrder: 1,
          state: 'active' as const,
        })),
      },
    });
    const app = await createTestApp({
      workers: false,
      env: {
        SALESLOFT_CLIENT_ID: salesloft.clientId,
        SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
        SALESLOFT_API_URL: salesloft.apiUrl,
        SALESLOFT_AUTH_URL: salesloft.authUrl,
        OUTREACH_CLIENT_ID: outreach.clientId,
        OUTREACH_CLIENT_SECRET: outreach.clientSecret,
        OUTREACH_API_URL: outreach.apiUrl,
        OUTREACH_AUTH_URL: outreach.authUrl,
      },
      adapters: { retry: { retries: 0, sleep: async () => {} } },
    });
    try {
      const clientId = await makeClient(app, 'Vendors');
      const sl = await sequenceAdFieldsWorld(app, {
        clientId,
        source: 'salesloft',
        credentials: oauthCredentialsFrom(salesloft.grantTokens()),
      });
      const or = await sequenceAdFieldsWorld(app, {
        clientId,
        source: 'outreach',
        credentials: oauthCredentialsFrom(outreach.issueTokens({ userId: 11 })),
      });
      await sl.sync();
      await or.sync();
      expect(await app.suppressions.isSuppressed(clientId, 'dnc@sl.example')).toBe(true);
      expect(await app.suppressions.isSuppressed(clientId, 'out@or.example')).toBe(true);
      expect(await app.suppressions.isSuppressed(clientId, 'ok@sl.example')).toBe(false);
      expect(await app.suppressions.isSuppressed(clientId, 'in@or.example')).toBe(false);
      const rows = await app.db.select().from(suppressions).where(eq(suppressions.clientId, clientId));
      expect(rows.map((r) => [r.email, r.source, r.reason]).sort()).toEqual([
        ['dnc@sl.example', 'opt_out', 'Opted out in Salesloft (Do Not Contact)'],
        ['out@or.example', 'opt_out', 'Opted out in Outreach (opted out)'],
      ]);
      // A second sync adds nothing twice.
      await sl.sync();
      expect(
        await app.db.select().from(suppressions).where(eq(suppressions.clientId, clientId)),
      ).toHaveLength(2);
    } finally {
      await app.close();
      await salesloft.close();
      await outreach.close();
    }
  }, 120_000);
});
