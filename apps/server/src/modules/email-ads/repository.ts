import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

const isoOf = (v: string | Date | null): string | null => (v === null ? null : new Date(v).toISOString());

export type CadenceRow = { id: number; name: string; adsOn: boolean };

/** A cadence of the client (sequence or a cohort's), or null: another client's is not found. */
export async function cadenceOf(db: Db, clientId: string, cadenceId: number): Promise<CadenceRow | null> {
  const [row] = rowsOf<{ id: number; name: string; ads_on: boolean }>(
    await db.execute(sql`
      select c.id, c.name, (c.status = 'active' and c.is_super) as ads_on
      from cadences c where c.client_id = ${clientId} and c.id = ${cadenceId}`),
  );
  return row ? { id: row.id, name: row.name, adsOn: row.ads_on } : null;
}

/** The hidden cadence of a cohort of the client, or null. */
export async function cohortCadence(
  db: Db,
  clientId: string,
  cohortId: string,
): Promise<{ cadenceId: number; name: string } | null> {
  const [row] = rowsOf<{ cadence_id: number; name: string }>(
    await db.execute(sql`
      select cadence_id, name from cohorts where client_id = ${clientId} and id = ${cohortId}`),
  );
  return row ? { cadenceId: row.cadence_id, name: row.name } : null;
}

export type SnippetFacts = {
  targets: number;
  installedAt: string | null;
  previewContentId: string | null;
  lastTest: {
    sentAt: string;
    sentTo: string;
    prospectName: string;
    openedAt: string | null;
    clickedAt: string | null;
  } | null;
};

/**
 * What the cadence's e-mail step shows, in one statement. The installed time is the first e-mail
 * rendition impression of the cadence, read from the partial index engagement_events_email_idx
 * (decision 0020), so it costs the ingest path nothing beyond that index's rows.
 */
export async function snippetFacts(
  db: Db,
  clientId: string,
  cadenceId: number,
  userId: string,
): Promise<SnippetFacts> {
  type Row = {
    targets: number;
    installed_at: string | null;
    preview: string | null;
    sent_at: string | null;
    sent_to: string | null;
    first_name: string | null;
    last_name: string | null;
    opened_at: string | null;
    clicked_at: string | null;
  };
  const [row] = rowsOf<Row>(
    await db.execute(sql`
      select
        (select count(*)::int from targets t where t.client_id = ${clientId} and t.cadence_id = ${cadenceId}) as targets,
        (select min(e.occurred_at) from engagement_events e
          where e.cadence_id = ${cadenceId} and e.type = 'impression' and e.size = 'email'
            and e.client_id = ${clientId}) as installed_at,
        (select cd.content_days -> 0 ->> 'content_id' from cadence_days cd
          where cd.cadence_id = ${cadenceId} and cd.client_id = ${clientId}
            and jsonb_array_length(cd.content_days) > 0
          order by cd.day_number limit 1) as preview,
        s.created_at as sent_at, s.sent_to, p.first_name, p.last_name, s.opened_at, s.clicked_at
      from (select 1) one
      left join lateral (
        select * from email_snippet_tests s
        where s.client_id = ${clientId} and s.cadence_id = ${cadenceId} and s.user_id = ${userId}
        order by s.created_at desc limit 1
      ) s on true
      left join targets t on t.id = s.target_id
      left join prospects p on p.id = t.prospect_id`),
  );
  if (!row) throw new Error('the e-mail step statement returned no row');
  return {
    targets: row.targets,
    installedAt: isoOf(row.installed_at),
    previewContentId: row.preview,
    lastTest: row.sent_at
      ? {
          sentAt: isoOf(row.sent_at) ?? '',
          sentTo: row.sent_to ?? '',
          prospectName: nameOf(row.first_name, row.last_name),
          openedAt: isoOf(row.opened_at),
          clickedAt: isoOf(row.clicked_at),
        }
      : null,
  };
}

export const nameOf = (first: string | null, last: string | null) =>
  [first, last]
    .map((s) => (s ?? '').trim())
    .filter(Boolean)
    .join(' ') || 'A prospect';

export type TestTarget = { id: string; token: string; prospectName: string };

/**
 * The target whose ad a test e-mail shows: an active one whose rep has ads (onboarding), else any
 * active one, else any; the earliest added, so repeated tests show the same prospect.
 */
export async function testTarget(db: Db, clientId: string, cadenceId: number): Promise<TestTarget | null> {
  const [row] = rowsOf<{ id: string; token: string; first_name: string; last_name: string }>(
    await db.execute(sql`
      select t.id, t.token, p.first_name, p.last_name
      from targets t
      join prospects p on p.id = t.prospect_id
      left join sales_reps r on r.id = t.sales_rep_id
      where t.client_id = ${clientId} and t.cadence_id = ${cadenceId}
      order by t.is_active desc, coalesce(r.selected, false) desc, t.created_at, t.id
      limit 1`),
  );
  return row ? { id: row.id, token: row.token, prospectName: nameOf(row.first_name, row.last_name) } : null;
}

/**
 * Records a test e-mail unless the user sent `perHour` in the last hour (all cadences). The count
 * and the insert run after a transaction lock on the user, so two requests at once cannot both
 * take the last place. Null when the limit is reached, with the seconds until a place frees.
 */
export async function recordTest(
  db: Db,
  t: { clientId: string; cadenceId: number; targetId: string; userId: string; sentTo: string },
  perHour: number,
): Promise<{ id: string; sentAt: string } | { retryAfterSeconds: number }> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(727020, hashtext(${t.userId}))`);
    const [used] = rowsOf<{ n: number; oldest: string | null }>(
      await tx.execute(sql`
        select count(*)::int as n, min(created_at) as oldest from email_snippet_tests
        where user_id = ${t.userId} and created_at > now() - interval '1 hour'`),
    );
    if (used && used.n >= perHour) {
      const frees = used.oldest ? new Date(used.oldest).getTime() + 3_600_000 - Date.now() : 3_600_000;
      return { retryAfterSeconds: Math.max(1, Math.ceil(frees / 1000)) };
    }
    const [row] = rowsOf<{ id: string; created_at: string }>(
      await tx.execute(sql`
        insert into email_snippet_tests (client_id, cadence_id, target_id, user_id, sent_to)
        values (${t.clientId}, ${t.cadenceId}, ${t.targetId}, ${t.userId}, ${t.sentTo})
        returning id, created_at`),
    );
    if (!row) throw new Error('the test e-mail insert returned no row');
    return { id: row.id, sentAt: isoOf(row.created_at) ?? '' };
  });
}

/** A target with what the bulk export writes (its ad and click URLs are built from the token). */
export type ExportRow = {
  token: string;
  first_name: string;
  last_name: string;
  email: string | null;
  title: string;
  company: string | null;
  rep: string | null;
  day_number: number;
  is_active: boolean;
};

/** Every target of a cadence (a cohort's too), by prospect name: the bulk export's statement. */
export function exportStatement(clientId: string, cadenceId: number): SQL {
  return sql`
    select t.token, p.first_name, p.last_name, p.email, p.title, co.name as company,
      nullif(btrim(coalesce(r.first_name, '') || ' ' || coalesce(r.last_name, '')), '') as rep,
      t.day_number, t.is_active
    from targets t
    join prospects p on p.id = t.prospect_id
    left join companies co on co.id = p.company_id
    left join sales_reps r on r.id = t.sales_rep_id
    where t.client_id = ${clientId} and t.cadence_id = ${cadenceId}
    order by lower(p.last_name), lower(p.first_name), t.id`;
}
