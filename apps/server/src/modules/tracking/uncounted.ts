import { sql } from 'drizzle-orm';
import type { UncountedSummary } from '@rally/shared/schemas/tracking';
import type { Db } from '../../db/client.ts';

/**
 * What was stored but not counted (issue 38, decision 0017): `uncounted_events` by type and verdict,
 * for the drawer, the feed and the engagement report. A leaf module (no other tracking imports), so
 * those modules can read it without an import cycle.
 */

type Queries = Pick<Db, 'execute'>;
type Row = { target_id?: string; type: string; verdict: string; n: number };
type Entry = UncountedSummary[number];

const VERDICT_ORDER: Record<Entry['verdict'], number> = { scanner: 0, machine_open: 1, bot: 2 };
const TYPE_ORDER: Record<Entry['type'], number> = { click: 0, impression: 1 };

/** The rows as a summary: clicks before opens, scanners first (what most changes a count). */
function summaryOf(rows: Row[]): UncountedSummary {
  return rows
    .filter((r) => r.type in TYPE_ORDER && r.verdict in VERDICT_ORDER)
    .map((r) => ({ type: r.type as Entry['type'], verdict: r.verdict as Entry['verdict'], count: r.n }))
    .sort(
      (a, b) =>
        TYPE_ORDER[a.type] - TYPE_ORDER[b.type] || VERDICT_ORDER[a.verdict] - VERDICT_ORDER[b.verdict],
    );
}

/** Per target of the client (uncounted_events_target_idx); targets with none are absent. */
export async function uncountedByTarget(
  db: Queries,
  clientId: string,
  targetIds: string[],
): Promise<Map<string, UncountedSummary>> {
  const out = new Map<string, UncountedSummary>();
  if (!targetIds.length) return out;
  const result = await db.execute(sql`
    select u.target_id::text as target_id, u.type, u.verdict, count(*)::int as n
      from uncounted_events u
     where u.target_id = any(${`{${targetIds.join(',')}}`}::uuid[]) and u.client_id = ${clientId}
     group by 1, 2, 3`);
  const byTarget = new Map<string, Row[]>();
  for (const r of (result as unknown as { rows: Row[] }).rows) {
    const id = String(r.target_id);
    byTarget.set(id, [...(byTarget.get(id) ?? []), r]);
  }
  for (const [id, rows] of byTarget) out.set(id, summaryOf(rows));
  return out;
}

/** The client's in [from, to) (uncounted_events_client_idx). */
export async function uncountedInRange(
  db: Queries,
  clientId: string,
  from: Date | string,
  to: Date | string,
): Promise<UncountedSummary> {
  const at = (d: Date | string) => (typeof d === 'string' ? d : d.toISOString());
  const result = await db.execute(sql`
    select u.type, u.verdict, count(*)::int as n
      from uncounted_events u
     where u.client_id = ${clientId} and u.occurred_at >= ${at(from)}::timestamptz
       and u.occurred_at < ${at(to)}::timestamptz
     group by 1, 2`);
  return summaryOf((result as unknown as { rows: Row[] }).rows);
}
