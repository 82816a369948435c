import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { StoredFeedItem } from '../feed/items.ts';
import { rowsOf } from './repository.ts';

/** A stored feed item as the feed bus publishes it. */
export async function readFeedItem(db: Db, id: number): Promise<StoredFeedItem | null> {
  const [row] = rowsOf<StoredFeedItem & { created_ms: number }>(
    await db.execute(sql`select f.id::text as id, f.client_id::text as client_id, f.type,
      f.target_id::text as target_id, f.cadence_id, f.prospect_id::text as prospect_id,
      f.sales_rep_id::text as sales_rep_id, f.data, (extract(epoch from f.created_at) * 1000)::float8 as created_ms
      from feed_items f where f.id = ${id}`),
  );
  return row ? { ...row, created_at: new Date(Number(row.created_ms)) } : null;
}
