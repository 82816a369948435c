import { and, eq, inArray } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { adFieldSettings, cadences, integrations, prospects, targets } from '../src/db/schema/index.ts';
import { createSecretBox } from '../src/lib/crypto.ts';
import type { Credentials } from '../src/modules/integrations/port.ts';
import { adUrls, neutralAdUrls } from '../src/modules/tracking/index.ts';
import type { Browser } from './http.ts';

/**
 * Shared by the ad-fields tests of the sequence platforms (issue 38): a connection of the client
 * with sealed credentials, its sync and write run directly (no queue), and what Rally should have
 * written, read from the database.
 */
export async function sequenceAdFieldsWorld(
  app: FastifyInstance,
  o: { clientId: string; source: 'salesloft' | 'outreach' | 'apolloio'; credentials: Credentials },
) {
  const box = createSecretBox(app.config.appSecret);
  const [row] = await app.db
    .insert(integrations)
    .values({
      clientId: o.clientId,
      source: o.source,
      accountName: 'Team',
      credentialsEnc: box.encrypt(JSON.stringify(o.credentials)),
    })
    .returning({ id: integrations.id });
  const integrationId = row!.id;
  const publicUrl = app.config.publicUrl;
  return {
    integrationId,
    sync: () => app.integrationSync.run({ integrationId }),
    write: () => app.adFields.writer.run({ integrationId }),
    setCredentials: (next: Credentials) =>
      app.db
        .update(integrations)
        .set({ credentialsEnc: box.encrypt(JSON.stringify(next)) })
        .where(eq(integrations.id, integrationId)),
    /** Ads on for these cadences (by the vendor's id). */
    adsOn: (...externalIds: string[]) =>
      app.db
        .update(cadences)
        .set({ isSuper: true })
        .where(and(eq(cadences.integrationId, integrationId), inArray(cadences.externalId, externalIds))),
    /** Writing on with these two fields. */
    enable: (image: string, click: string) =>
      app.db
        .insert(adFieldSettings)
        .values({ integrationId, clientId: o.clientId, imageField: image, clickField: click, enabled: true })
        .onConflictDoUpdate({
          target: adFieldSettings.integrationId,
          set: { imageField: image, clickField: click, enabled: true },
        }),
    /** The token of the person's target on the cadence (both by the vendor's ids). */
    async tokenOf(person: string | number, cadence: string | number): Promise<string> {
      const [t] = await app.db
        .select({ token: targets.token })
        .from(targets)
        .innerJoin(prospects, eq(prospects.id, targets.prospectId))
        .innerJoin(cadences, eq(cadences.id, targets.cadenceId))
        .where(
          and(
            eq(prospects.integrationId, integrationId),
            eq(prospects.externalId, String(person)),
            eq(cadences.externalId, String(cadence)),
          ),
        );
      if (!t) throw new Error(`no target of ${person} on ${cadence}`);
      return t.token;
    },
    urls: (token: string) => adUrls(publicUrl, token),
    neutral: () => neutralAdUrls(publicUrl),
    async settings() {
      const [s] = await app.db
        .select()
        .from(adFieldSettings)
        .where(eq(adFieldSettings.integrationId, integrationId));
      return s!;
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
