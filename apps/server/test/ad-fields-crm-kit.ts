import { and, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { adFieldSettings, adFieldValues, integrations, prospects, targets } from '../src/db/schema/index.ts';
import { createSecretBox } from '../src/lib/crypto.ts';
import type { Credentials } from '../src/modules/integrations/port.ts';
import { adUrls, neutralAdUrls } from '../src/modules/tracking/index.ts';
import { makeCadence, makeIntegration, makeProspect, makeTarget } from './engagement.ts';
import type { Browser } from './http.ts';

/**
 * Shared by the ad-fields tests of the CRMs (issue 38): a CRM connection of the client with sealed
 * credentials, and the client's cadences (of another connection, as a sequence platform's would
 * be) whose prospects the CRM's contacts match by e-mail. Sync and write run directly (no queue).
 */
export async function crmAdFieldsWorld(
  app: FastifyInstance,
  o: { clientId: string; source: 'hubspot' | 'salesforce' | 'marketo'; credentials: Credentials },
) {
  const box = createSecretBox(app.config.appSecret);
  // The cadences' own connection first: the factories take the client's first integration.
  await makeIntegration(app, o.clientId);
  const [row] = await app.db
    .insert(integrations)
    .values({
      clientId: o.clientId,
      source: o.source,
      accountName: 'CRM',
      credentialsEnc: box.encrypt(JSON.stringify(o.credentials)),
    })
    .returning({ id: integrations.id });
  const integrationId = row!.id;
  const publicUrl = app.config.publicUrl;
  const prospectOf = new Map<string, string>();

  return {
    integrationId,
    sync: () => app.crmSync.run({ integrationId }),
    write: () => app.adFields.writer.run({ integrationId }),
    setCredentials: (next: Credentials) =>
      app.db
        .update(integrations)
        .set({ credentialsEnc: box.encrypt(JSON.stringify(next)), isActive: true, lastError: null })
        .where(eq(integrations.id, integrationId)),
    /** A cadence with ads on. */
    cadence: (name: string) => makeCadence(app, o.clientId, { name, isSuper: true }),
    /** A target on the cadence for the prospect with this address (made on first use). */
    async enrol(cadenceId: number, email: string): Promise<string> {
      let prospectId = prospectOf.get(email);
      if (!prospectId) {
        prospectId = await makeProspect(app, o.clientId);
        await app.db.update(prospects).set({ email }).where(eq(prospects.id, prospectId));
        prospectOf.set(email, prospectId);
      }
      return (await makeTarget(app, o.clientId, cadenceId, { prospectId })).token;
    },
    /** The prospect leaves the cadence (the target ends). */
    leave: (cadenceId: number, email: string) =>
      app.db
        .update(targets)
        .set({ isActive: false })
        .where(and(eq(targets.cadenceId, cadenceId), eq(targets.prospectId, prospectOf.get(email)!))),
    enable: (image: string, click: string) =>
      app.db
        .insert(adFieldSettings)
        .values({ integrationId, clientId: o.clientId, imageField: image, clickField: click, enabled: true })
        .onConflictDoUpdate({
          target: adFieldSettings.integrationId,
          set: { imageField: image, clickField: click, enabled: true, lastError: null },
        }),
    urls: (token: string) => adUrls(publicUrl, token),
    neutral: () => neutralAdUrls(publicUrl),
    /** Why the vendor refused the record, when it did. */
    async refusal(recordId: string): Promise<string | null> {
      const [v] = await app.db
        .select({ reason: adFieldValues.failedReason })
        .from(adFieldValues)
        .where(and(eq(adFieldValues.integrationId, integrationId), eq(adFieldValues.recordId, recordId)));
      return v?.reason ?? null;
    },
    /** The connection's row of GET …/ad_fields, as a member sees it. */
    async listed(member: Browser) {
      const items = (await member.get(`/v1/rest/client/${o.clientId}/ad_fields`)).json().items as {
        integration_id: number;
      }[];
      return items.find((i) => i.integration_id === integrationId) as Record<string, unknown>;
    },
  };
}
