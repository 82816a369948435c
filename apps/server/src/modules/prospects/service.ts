import { and, eq, sql } from 'drizzle-orm';
import { DEFAULT_PROSPECT_ORDER } from '@rally/shared/schemas/prospects';
import type { Prospect, ProspectListReply, prospectListQuery } from '@rally/shared/schemas/prospects';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { salesReps } from '../../db/schema/index.ts';
import { fieldError } from '../../lib/errors.ts';
import { uncountedByTarget } from '../tracking/uncounted.ts';
import { decodeCursor, encodeCursor, filtersFingerprint } from './cursor.ts';
import { listPage, phaseKeyTypes, prospectsByIds } from './repository.ts';
import type { ProspectFilters } from './repository.ts';

type ListQuery = z.output<typeof prospectListQuery>;

const yes = (v: 'true' | 'false' | undefined) => (v === undefined ? undefined : v === 'true');

/** What a cursor is bound to besides sort and order: the search and the filters. */
export function listFingerprint(
  q: Pick<ListQuery, 'search' | 'cadence_id' | 'sales_rep_id' | 'mine' | 'super' | 'active'>,
): string {
  return filtersFingerprint({
    search: q.search ? q.search.toLowerCase() : null,
    cadence: q.cadence_id ?? null,
    rep: q.sales_rep_id?.toLowerCase() ?? null,
    ...(q.mine === 'true' ? { mine: true } : {}),
    super: q.super ?? null,
    active: q.active ?? null,
  });
}

/** The client's sales reps with this e-mail (one per integration that brought the person). */
async function repsWithEmail(db: Db, clientId: string, email: string): Promise<string[]> {
  const rows = await db
    .select({ id: salesReps.id })
    .from(salesReps)
    .where(and(eq(salesReps.clientId, clientId), eq(sql`lower(${salesReps.email})`, email.toLowerCase())));
  return rows.map((r) => r.id.toLowerCase());
}

/**
 * The rep filter's reps: the one asked for, and with `mine` only those that are the signed-in user
 * (matched by e-mail: a rep comes from the sequence platform, a user signs in; issue 42 item 9).
 */
async function repFilter(
  db: Db,
  clientId: string,
  q: ListQuery,
  userEmail: string,
): Promise<string[] | undefined> {
  const asked = q.sales_rep_id?.toLowerCase();
  if (q.mine !== 'true') return asked === undefined ? undefined : [asked];
  const mine = await repsWithEmail(db, clientId, userEmail);
  return asked === undefined ? mine : mine.filter((id) => id === asked);
}

/**
 * `GET /sc/prospects`: one page, and the cursor of the next. `publicUrl` (config `publicUrl`) is the
 * base of each cadence entry's ad and click tags; `userEmail` picks the reps of `mine`.
 */
export async function listProspects(
  db: Db,
  clientId: string,
  q: ListQuery,
  publicUrl: string,
  userEmail: string,
): Promise<ProspectListReply> {
  const order = q.order ?? DEFAULT_PROSPECT_ORDER[q.sort];
  const search = q.search ? q.search : undefined;
  const salesRepIds = await repFilter(db, clientId, q, userEmail);
  // `mine` for someone who is no rep of the client: nobody's prospects are theirs.
  if (salesRepIds?.length === 0)
    return { items: [], next_cursor: null, sort: q.sort, order, page_size: q.page_size };
  const filters: ProspectFilters = {
    clientId,
    search,
    cadenceId: q.cadence_id,
    salesRepIds,
    isSuper: yes(q.super),
    isActive: yes(q.active),
  };
  const fingerprint = listFingerprint(q);
  let after: { phase: number; keys: string[] } | null = null;
  if (q.cursor) {
    const c = decodeCursor(q.cursor, { sort: q.sort, order, filters: fingerprint }, phaseKeyTypes(q.sort));
    if (typeof c === 'string') throw fieldError('querystring.cursor', c);
    after = c;
  }
  const { rows, items } = await db.transaction(async (tx) => {
    // Every query of the list ends at a LIMIT through an ordered index walk; a parallel plan would
    // have each worker walk its share to the end before the gather could stop it (3 to 4 times
    // slower on the search + cadence + impressions case of bench/prospects).
    await tx.execute(sql`set local max_parallel_workers_per_gather = 0`);
    // One row more than the page tells whether another page follows.
    const rows = await listPage(tx, filters, q.sort, order, after, q.page_size + 1);
    return { rows, items: await prospectsByIds(tx, filters, rows.slice(0, q.page_size), publicUrl) };
  });
  const page = rows.slice(0, q.page_size);
  const last = page.at(-1);
  return {
    items,
    next_cursor:
      rows.length > q.page_size && last
        ? encodeCursor({ sort: q.sort, order, filters: fingerprint, phase: last.phase, keys: last.keys })
        : null,
    sort: q.sort,
    order,
    page_size: q.page_size,
  };
}

/**
 * `GET /sc/prospects/{id}`: the prospect with every cadence entry, each with what was not counted
 * (issue 38), or null when not the client's.
 */
export async function getProspect(
  db: Db,
  clientId: string,
  id: string,
  publicUrl: string,
): Promise<Prospect | null> {
  const [found] = await prospectsByIds(
    db,
    { clientId },
    [{ prospectId: id.toLowerCase(), targetId: null }],
    publicUrl,
  );
  if (!found) return null;
  const uncounted = await uncountedByTarget(
    db,
    clientId,
    found.cadences.map((c) => c.target_id),
  );
  return {
    ...found,
    cadences: found.cadences.map((c) => ({ ...c, uncounted: uncounted.get(c.target_id) ?? [] })),
  };
}
