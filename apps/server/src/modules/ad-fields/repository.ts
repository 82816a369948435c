import { and, eq, inArray, sql } from 'drizzle-orm';
import { AD_FIELD_SOURCES } from '@rally/shared/schemas/ad-delivery';
import type { AdFieldSource } from '@rally/shared/schemas/ad-delivery';
import type { Db } from '../../db/client.ts';
import { adFieldSettings, adFieldValues, integrations } from '../../db/schema/index.ts';

/**
 * The ad fields' tables (db/schema/ad-fields.ts), always scoped by client or integration: the
 * owner's settings per connection, and what was written into each person record.
 */

export type Tx = Pick<Db, 'select' | 'insert' | 'update' | 'execute' | 'delete'>;
export type Integration = typeof integrations.$inferSelect;
export type Settings = typeof adFieldSettings.$inferSelect;

export const SEQUENCE_WRITE_SOURCES = ['salesloft', 'outreach', 'apolloio'] as const;

export function isAdFieldSource(source: string): source is AdFieldSource {
  return (AD_FIELD_SOURCES as readonly string[]).includes(source);
}

/** The client's connections of the six sources, with their settings (null before any were saved). */
export async function connectionsOf(db: Db, clientId: string) {
  return db
    .select({ integration: integrations, settings: adFieldSettings })
    .from(integrations)
    .leftJoin(adFieldSettings, eq(adFieldSettings.integrationId, integrations.id))
    .where(and(eq(integrations.clientId, clientId), inArray(integrations.source, [...AD_FIELD_SOURCES])))
    .orderBy(integrations.id);
}

/** One connection of the client (null when it is another client's, unknown, or of another source). */
export async function connectionOf(db: Db, clientId: string, integrationId: number) {
  const [row] = await db
    .select({ integration: integrations, settings: adFieldSettings })
    .from(integrations)
    .leftJoin(adFieldSettings, eq(adFieldSettings.integrationId, integrations.id))
    .where(
      and(
        eq(integrations.id, integrationId),
        eq(integrations.clientId, clientId),
        inArray(integrations.source, [...AD_FIELD_SOURCES]),
      ),
    );
  return row ?? null;
}

/** Creates or changes the settings row of a connection. */
export async function saveSettings(
  db: Tx,
  ref: { integrationId: number; clientId: string },
  values: Partial<Pick<Settings, 'imageField' | 'clickField' | 'enabled' | 'lastError' | 'pendingCount'>>,
): Promise<void> {
  await db
    .insert(adFieldSettings)
    .values({ ...ref, ...values })
    .onConflictDoUpdate({
      target: adFieldSettings.integrationId,
      set: { ...values, updatedAt: new Date() },
    });
}

/** Written and refused records under the current signature (the settings screen's counts). */
export async function valueCounts(
  db: Db,
  integrationId: number,
  signature: string,
): Promise<{ written: number; failed: number }> {
  const [row] = await db
    .select({
      written: sql<number>`count(*) filter (where ${adFieldValues.token} is not null and ${adFieldValues.failedReason} is null)::int`,
      failed: sql<number>`count(*) filter (where ${adFieldValues.failedReason} is not null)::int`,
    })
    .from(adFieldValues)
    .where(and(eq(adFieldValues.integrationId, integrationId), eq(adFieldValues.signature, signature)));
  return { written: row?.written ?? 0, failed: row?.failed ?? 0 };
}

/** A record to write: the token whose URLs it should hold, or null for the neutral pair. */
export type PendingRecord = { recordId: string; token: string | null };

/**
 * The records of a sequence connection that should hold a target's URLs, one per person: among the
 * person's targets still on a cadence of this connection whose ads are on (and that has not
 * finished), the most recently started one (decision 0019).
 */
const sequenceWanted = (integrationId: number) => sql`
  select distinct on (p.external_id) p.external_id as record_id, t.token
    from cadences c
    join targets t on t.cadence_id = c.id
    join prospects p on p.id = t.prospect_id
   where c.integration_id = ${integrationId}
     and c.is_super and c.status <> 'finished'
     and t.is_active
   order by p.external_id, t.created_at desc, t.id desc`;

/**
 * The same for a CRM connection, whose person records are its contacts (Salesforce Contacts and
 * Leads, Marketo leads): a contact's targets are those of the client's prospects it matches (by the
 * stored match or by e-mail, ARCHITECTURE.md §10), in any of the client's cadences and cohorts.
 */
const crmWanted = (integrationId: number, clientId: string) => sql`
  with contacts as (
    select external_id, prospect_id, lower(email) as email
      from crm_contacts
     where integration_id = ${integrationId} and not is_deleted
  ), matched as (
    select external_id, prospect_id from contacts where prospect_id is not null
    union
    select k.external_id, p.id
      from contacts k
      join prospects p on p.client_id = ${clientId} and lower(p.email) = k.email
     where k.email is not null
  )
  select distinct on (m.external_id) m.external_id as record_id, t.token
    from matched m
    join targets t on t.prospect_id = m.prospect_id
    join cadences c on c.id = t.cadence_id
   where t.client_id = ${clientId}
     and c.is_super and c.status <> 'finished'
     and t.is_active
   order by m.external_id, t.created_at desc, t.id desc`;

/**
 * Every record whose fields differ from what they should hold under `signature`, ordered by id: a
 * person with a wanted target whose token or signature differs from what was written, and a person
 * who had a target's URLs written (under this signature) and has no wanted target now (the neutral
 * pair). A person never written and with no target is left alone, as are records the vendor refused
 * (until what they should hold changes).
 */
export async function pendingRecords(
  db: Pick<Db, 'execute'>,
  integration: { id: number; clientId: string; source: string },
  signature: string,
): Promise<PendingRecord[]> {
  const wanted = (SEQUENCE_WRITE_SOURCES as readonly string[]).includes(integration.source)
    ? sequenceWanted(integration.id)
    : crmWanted(integration.id, integration.clientId);
  const result = await db.execute(sql`
    with wanted as (${wanted}),
    written as (
      select record_id, token, signature from ad_field_values where integration_id = ${integration.id}
    )
    select coalesce(w.record_id, v.record_id) as record_id, w.token
      from wanted w
      full join written v on v.record_id = w.record_id
     where (w.record_id is not null
            and (v.record_id is null or v.token is distinct from w.token or v.signature <> ${signature}))
        or (w.record_id is null and v.token is not null and v.signature = ${signature})
     order by 1`);
  const rows = (result as unknown as { rows: { record_id: string; token: string | null }[] }).rows;
  return rows.map((r) => ({ recordId: r.record_id, token: r.token }));
}

/** Records what one batch wrote (or what the vendor refused), in one statement. */
export async function recordWritten(
  tx: Tx,
  ref: { integrationId: number; clientId: string },
  signature: string,
  rows: { recordId: string; token: string | null; failedReason: string | null }[],
): Promise<void> {
  if (!rows.length) return;
  await tx
    .insert(adFieldValues)
    .values(
      rows.map((r) => ({
        integrationId: ref.integrationId,
        clientId: ref.clientId,
        recordId: r.recordId,
        token: r.token,
        signature,
        failedReason: r.failedReason,
      })),
    )
    .onConflictDoUpdate({
      target: [adFieldValues.integrationId, adFieldValues.recordId],
      set: {
        token: sql`excluded.token`,
        signature: sql`excluded.signature`,
        failedReason: sql`excluded.failed_reason`,
        writtenAt: sql`now()`,
      },
    });
}
