import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';

/**
 * The lift report's SQL pieces (issue 45; docs/reports.md "Lift"), shared by the computation at read
 * time (repository.ts: other windows, the export) and the stored outcomes (store.ts). Only targets
 * assigned while their cadence had a holdout take part (`holdout_group` set by the insert trigger of
 * migration 0053). Each one's outcomes are counted in the window after it entered (its row's
 * creation):
 * - a meeting: its prospect's CRM contact has an activity of a meeting type (the CRM connection's
 *   `meeting_activity_types`) whose last time falls in the window;
 * - opportunities created in the window on its accounts (the stored prospect–account ties, as every
 *   report ties them), their amount in the client's main currency as pipeline;
 * - won revenue: those accounts' won opportunities closing in the window.
 * A superprospect among them (exposed only: the held out count nothing) is the Rally fee.
 * Nothing here depends on the time of the read, only on the facts: so stored outcomes stay right
 * until a fact changes, even while a target's window is still open.
 */

/** `mt`: the client's meeting activity types per CRM connection. */
export function meetingTypes(clientId: string): SQL {
  return sql`
    mt as (
      select s.integration_id, x.type
        from crm_integration_settings s
        cross join lateral jsonb_array_elements_text(
          case when jsonb_typeof(s.meeting_activity_types) = 'array' then s.meeting_activity_types else '[]'::jsonb end
        ) as x(type)
       where s.client_id = ${clientId}
    )`;
}

export const windowOf = (days: number) => sql`make_interval(days => ${days})`;

/**
 * The CTEs every lift read starts from: `mt` (the client's meeting activity types per CRM
 * connection) and `tg` (the scope's assigned targets, with when each entered). The tenant is fixed
 * by `tg`: contacts, ties and opportunities below are reached from its prospects and their
 * companies only, by the indexes those columns lead (a `client_id` condition there lets the planner
 * scan every row of the client per target, as PGlite keeps no statistics).
 */
export function baseCtes(clientId: string, where: SQL, page?: { after: string; limit: number }): SQL {
  return sql`
    ${meetingTypes(clientId)}, tg as materialized (
      select t.id, t.prospect_id, t.cadence_id, t.holdout_group, t.created_at as entered, t.super_date
        from targets t
       where t.client_id = ${clientId} and t.holdout_group is not null and ${where}
         ${page ? sql`and t.id > ${page.after} order by t.id limit ${page.limit}` : sql``}
    )`;
}

/** Joins from `tg` to its target's meetings in the window (a meeting-type activity last done in it). */
export function meetingJoin(win: SQL): SQL {
  return sql`
    join crm_contacts cc on cc.prospect_id = tg.prospect_id and not cc.is_deleted
    join crm_activity_counts a on a.contact_id = cc.id
      and a.last_activity_at >= tg.entered and a.last_activity_at < tg.entered + ${win}
    join mt on mt.integration_id = a.integration_id and mt.type = a.activity_type`;
}

/** From `tg`: each opportunity on its target's accounts once, created and won in the window or not. */
export function opportunityRows(win: SQL, onePerTarget: SQL): SQL {
  return sql`
    select distinct tg.id, tg.holdout_group, o.id as opportunity_id, o.amount_cents, o.currency,
      o.crm_created_at >= tg.entered and o.crm_created_at < tg.entered + ${win} as created_in,
      o.is_won and o.close_date is not null
        and o.close_date::timestamptz + interval '1 day' > tg.entered
        and o.close_date::timestamptz < tg.entered + ${win} as won_in
      from ${onePerTarget}
      join prospect_account_ties pt on pt.prospect_id = tg.prospect_id
      join opportunities o on o.company_id = pt.company_id and not o.is_deleted`;
}

/** Counts and amounts of `opportunityRows`, as `created`, `pipeline`, `won` (cents, main currency). */
export function opportunityTotals(currency: string): SQL {
  return sql`
    count(*) filter (where x.created_in) as created,
    coalesce(sum(x.amount_cents) filter (where x.created_in and x.currency = ${currency}), 0) as pipeline,
    coalesce(sum(x.amount_cents) filter (where x.won_in and x.currency = ${currency}), 0) as won`;
}
