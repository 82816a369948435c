import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { ErasureCounts } from '@rally/shared/schemas/erasures';
import type { Db } from '../../db/client.ts';
import { hashEmail } from '../ad-networks/hashing.ts';
import { normaliseEmail } from '../suppressions/key.ts';

/**
 * The deletes of one erasure (decision 0031), run inside the caller's transaction, every statement
 * scoped by `client_id`. The person is whoever the client holds under the address: prospects with it
 * (or keyed by it, as file imports key theirs), CRM contacts with it, and the prospects those contacts
 * are linked to. Rollups need no step of their own: deleting events deletes the days' markers
 * (migration 0024) and with them the daily and account rollups, counted again at the next read.
 */

const rowsOf = <T>(result: unknown) => (result as { rows: T[] }).rows;
const uuids = (ids: readonly string[]) => sql`${`{${ids.join(',')}}`}::uuid[]`;
const texts = (values: readonly string[]) => sql`${JSON.stringify(values)}::jsonb`;
/** `x ilike pattern` that matches the address anywhere, whatever its case. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

async function count(tx: Db, statement: SQL): Promise<number> {
  const [row] = rowsOf<{ n: number }>(
    await tx.execute(sql`with d as (${statement}) select count(*)::int as n from d`),
  );
  return Number(row?.n ?? 0);
}

export type EraseResult = { counts: ErasureCounts; audiences: string[] };

export async function erasePerson(tx: Db, clientId: string, email: string): Promise<EraseResult> {
  const norm = normaliseEmail(email);
  const pattern = likePattern(norm);
  // The forms an address is stored in: as given (any case), or with a blank around it (lists and
  // kits keep ' Ann@x.com'); each an equality, so the client's index on lower(email) answers.
  const forms = [norm, ` ${norm}`, `${norm} `, ` ${norm} `];
  const sameAddress = (col: SQL) =>
    sql`lower(${col}) = any(array(select lower(jsonb_array_elements_text(${texts(forms)}))))`;

  const contacts = rowsOf<{ id: string; external_id: string; prospect_id: string | null }>(
    await tx.execute(sql`select id, external_id, prospect_id from crm_contacts
      where client_id = ${clientId} and ${sameAddress(sql`email`)}`),
  );
  const linked = contacts.flatMap((c) => (c.prospect_id ? [c.prospect_id] : []));
  const people = rowsOf<{ id: string; external_id: string }>(
    await tx.execute(sql`select id, external_id from prospects
      where client_id = ${clientId}
        and (${sameAddress(sql`email`)}
          or (external_id = ${norm} and integration_id in (select id from integrations where client_id = ${clientId}))
          or id = any(${uuids(linked)}))`),
  );
  const P = people.map((p) => p.id);
  // Contacts linked to the person's prospects are the same person in the CRM.
  const more = rowsOf<{ id: string; external_id: string }>(
    await tx.execute(sql`select id, external_id from crm_contacts
      where client_id = ${clientId} and prospect_id = any(${uuids(P)})`),
  );
  const contactIds = [...new Set([...contacts, ...more].map((c) => c.id))];
  const C = uuids(contactIds);
  const targetRows = rowsOf<{ id: string; token: string }>(
    await tx.execute(
      sql`select id, token from targets where client_id = ${clientId} and prospect_id = any(${uuids(P)})`,
    ),
  );
  const T = uuids(targetRows.map((t) => t.id));
  const ids = [...P, ...targetRows.map((t) => t.id)];
  const mentionsAnId = (col: SQL) =>
    ids.length
      ? sql`exists (select 1 from jsonb_array_elements_text(${texts(ids)}) i where strpos(${col}, i) > 0)`
      : sql`false`;

  const events = await count(
    tx,
    sql`delete from engagement_events where client_id = ${clientId} and target_id = any(${T}) returning 1`,
  );
  const uncounted = await count(
    tx,
    sql`delete from uncounted_events where client_id = ${clientId} and target_id = any(${T}) returning 1`,
  );
  const feed = await count(
    tx,
    sql`delete from feed_items where client_id = ${clientId}
      and (target_id = any(${T}) or prospect_id = any(${uuids(P)}) or data::text ilike ${pattern}) returning 1`,
  );
  // CRM and sequence write-back: what Rally wrote into the person's records is forgotten; the token
  // left in the vendor's fields now names no target and serves the neutral image.
  const writeBacks = await count(
    tx,
    sql`delete from ad_field_values where client_id = ${clientId}
      and (token = any(array(select jsonb_array_elements_text(${texts(targetRows.map((t) => t.token))})))
        or record_id = any(array(select jsonb_array_elements_text(${texts([
          ...people.map((p) => p.external_id),
          ...[...contacts, ...more].map((c) => c.external_id),
        ])})))) returning 1`,
  );

  // Audiences: a member never sent goes; one sent is marked for removal by the next push.
  const hash = hashEmail(norm);
  let audienceMembers = 0;
  let audiences: string[] = [];
  if (hash) {
    audienceMembers = await count(
      tx,
      sql`delete from ad_audience_members where client_id = ${clientId} and hash = ${hash} and state = 'add' returning 1`,
    );
    const marked = rowsOf<{ audience_id: string }>(
      await tx.execute(sql`update ad_audience_members set state = 'remove', updated_at = now()
        where client_id = ${clientId} and hash = ${hash} and state = 'added' returning audience_id`),
    );
    audienceMembers += marked.length;
    audiences = [...new Set(marked.map((m) => m.audience_id))];
  }

  const cohortRows = rowsOf<{ cohort_id: string }>(
    await tx.execute(sql`delete from cohort_members where client_id = ${clientId}
      and (prospect_id = any(${uuids(P)}) or crm_contact_id = any(${C}) or target_id = any(${T}))
      returning cohort_id`),
  );
  const cohortIds = [...new Set(cohortRows.map((r) => r.cohort_id))];
  if (cohortIds.length) {
    await tx.execute(sql`update cohorts c set
        size = (select count(*) from cohort_members m where m.cohort_id = c.id),
        accounts = (select count(distinct coalesce(m.company_id, m.prospect_id)) from cohort_members m where m.cohort_id = c.id)
      where c.client_id = ${clientId} and c.id = any(${uuids(cohortIds)})`);
  }
  // A person without a company is their own account in a journey (decision 0010).
  const journeyMembers = await count(
    tx,
    sql`delete from journey_accounts where client_id = ${clientId} and account_id = any(${uuids(P)}) returning 1`,
  );
  await tx.execute(
    sql`delete from journey_moves where client_id = ${clientId} and account_id = any(${uuids(P)})`,
  );

  await tx.execute(
    sql`delete from crm_list_members where client_id = ${clientId} and contact_id = any(${C})`,
  );
  await tx.execute(
    sql`delete from crm_activity_counts where client_id = ${clientId} and contact_id = any(${C})`,
  );
  const crmContacts = await count(
    tx,
    sql`delete from crm_contacts where client_id = ${clientId} and id = any(${C}) returning 1`,
  );
  const targets = await count(
    tx,
    sql`delete from targets where client_id = ${clientId} and id = any(${T}) returning 1`,
  );
  const prospects = await count(
    tx,
    sql`delete from prospects where client_id = ${clientId} and id = any(${uuids(P)}) returning 1`,
  );

  const outbox = await count(
    tx,
    sql`delete from email_outbox where client_id = ${clientId}
      and (${sameAddress(sql`to_address`)} or subject ilike ${pattern} or text_body ilike ${pattern}
        or html_body ilike ${pattern}) returning 1`,
  );
  const deliveries = await count(
    tx,
    sql`delete from webhook_deliveries where client_id = ${clientId}
      and (payload ilike ${pattern} or ${mentionsAnId(sql`payload`)}) returning 1`,
  );
  // A report file that names the person goes whole (the owner exports again); parts cascade.
  const exportFiles = await count(
    tx,
    sql`delete from export_files f where f.client_id = ${clientId}
      and exists (select 1 from export_file_parts pt where pt.file_id = f.id
        and (pt.text ilike ${pattern} or ${mentionsAnId(sql`pt.text`)})) returning 1`,
  );
  // An import's report of bad rows may quote the address.
  await tx.execute(sql`update file_imports set errors = coalesce((select jsonb_agg(e) from jsonb_array_elements(errors) e
      where e::text not ilike ${pattern}), '[]'::jsonb), updated_at = now()
    where client_id = ${clientId} and errors::text ilike ${pattern}`);

  return {
    counts: {
      prospects,
      targets,
      events,
      uncounted_events: uncounted,
      crm_contacts: crmContacts,
      cohort_memberships: cohortRows.length,
      journey_memberships: journeyMembers,
      feed_items: feed,
      export_files: exportFiles,
      outbox_messages: outbox,
      webhook_deliveries: deliveries,
      audience_members: audienceMembers,
      crm_write_backs: writeBacks,
    },
    audiences,
  };
}
