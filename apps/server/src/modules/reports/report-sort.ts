import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import type { SortOrder } from '@rally/shared/schemas/reports';

/**
 * A report column's sort on the server (issue 42 item 11): its SQL keys (fixed fragments of the
 * report's own query, never the caller's text: `sort` is validated against the report's allow-list)
 * and the order it takes when `order` is left out.
 */
export type SortKeys = { keys: SQL[]; order: SortOrder };

/**
 * `ORDER BY` of a column's sort: its keys in the asked order, empty values last either way, then the
 * tie-breaker (a unique id), so every row has one place and pages by offset neither repeat nor skip.
 */
export function orderBySort(spec: SortKeys, asked: SortOrder | undefined, tieBreaker: SQL): SQL {
  const dir = (asked ?? spec.order) === 'asc' ? sql`asc nulls last` : sql`desc nulls last`;
  return sql.join([...spec.keys.map((k) => sql`${k} ${dir}`), tieBreaker], sql`, `);
}
