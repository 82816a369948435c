import { sql } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';

/** What a test e-mail's tag was used for: its image shown, its link clicked, its landing page seen. */
export type TestTagUse = 'open' | 'click' | 'view';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The `test` query parameter of a tag or landing page, when it is shaped like a test's id. */
export function testIdOf(query: unknown): string | null {
  const test = (query as Record<string, unknown> | undefined)?.test;
  return typeof test === 'string' && UUID.test(test) ? test.toLowerCase() : null;
}

/**
 * Whether `testId` is a test e-mail of the target with this token (email_snippet_tests), marking
 * its first open or click. One statement; only requests that carry `?test=` come here, never the
 * ingest path's hot lane. A test's tags serve the target's ad and page but count nothing.
 */
export async function useTestTag(db: Db, testId: string, token: string, use: TestTagUse): Promise<boolean> {
  const result = (await db.execute(sql`
    update email_snippet_tests s set
      opened_at = case when ${use} = 'open' then coalesce(s.opened_at, now()) else s.opened_at end,
      clicked_at = case when ${use} = 'click' then coalesce(s.clicked_at, now()) else s.clicked_at end
    from targets t
    where s.id = ${testId} and t.token = ${token} and s.target_id = t.id
    returning s.id`)) as unknown as { rows: unknown[] };
  return result.rows.length > 0;
}
