import { and, desc, eq, ilike, isNotNull, isNull, lt, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type {
  Suppression,
  SuppressionListQuery,
  SuppressionSource,
} from '@rally/shared/schemas/suppressions';
import type { Db } from '../../db/client.ts';
import { suppressions, users } from '../../db/schema/index.ts';
import type { SuppressionKey } from './key.ts';
import { normaliseEmail } from './key.ts';

/**
 * The suppression list (issue 44, decision 0027). Every write scopes by `client_id`. The functions
 * take the key explicitly (each app has its own APP_SECRET); `app.suppressions` binds them.
 */
export type SuppressOptions = {
  source: SuppressionSource;
  reason?: string;
  /** The user who added it; null for a prospect's own opt-out or a sync. */
  by?: string | null;
};

type Row = typeof suppressions.$inferSelect;
const INSERT_CHUNK = 1_000;

/**
 * Puts `email` on the client's list (or keeps the entry already in force; an erasure then drops the
 * address from it, keeping only the hash). `created` is false when it was there already. Null when
 * nothing is left of the address.
 */
export async function suppress(
  db: Db,
  key: SuppressionKey,
  clientId: string,
  email: string,
  opts: SuppressOptions,
): Promise<{ id: number; created: boolean } | null> {
  const hash = key.hash(email);
  if (!hash) return null;
  const erasure = opts.source === 'erasure';
  const [row] = await db
    .insert(suppressions)
    .values({
      clientId,
      emailHash: hash,
      email: erasure ? null : normaliseEmail(email),
      source: opts.source,
      reason: opts.reason ?? '',
      createdBy: opts.by ?? null,
    })
    .onConflictDoUpdate({
      target: [suppressions.clientId, suppressions.emailHash],
      targetWhere: isNull(suppressions.removedAt),
      set: { email: erasure ? null : sql`${suppressions.email}` },
    })
    .returning({ id: suppressions.id, created: sql<boolean>`(xmax = 0)` });
  return row ? { id: Number(row.id), created: row.created === true || String(row.created) === 'true' } : null;
}

/** Many addresses at once (an upload, an import's opt-outs): how many were added and already there. */
export async function suppressMany(
  db: Db,
  key: SuppressionKey,
  clientId: string,
  emails: readonly string[],
  opts: SuppressOptions,
): Promise<{ added: number; already: number }> {
  const byHash = new Map<string, string>();
  for (const e of emails) {
    const h = key.hash(e);
    if (h && !byHash.has(h)) byHash.set(h, normaliseEmail(e));
  }
  const entries = [...byHash];
  let added = 0;
  for (let i = 0; i < entries.length; i += INSERT_CHUNK) {
    const chunk = entries.slice(i, i + INSERT_CHUNK);
    const rows = await db
      .insert(suppressions)
      .values(
        chunk.map(([emailHash, email]) => ({
          clientId,
          emailHash,
          email: opts.source === 'erasure' ? null : email,
          source: opts.source,
          reason: opts.reason ?? '',
          createdBy: opts.by ?? null,
        })),
      )
      .onConflictDoNothing({
        target: [suppressions.clientId, suppressions.emailHash],
        where: isNull(suppressions.removedAt),
      })
      .returning({ id: suppressions.id });
    added += rows.length;
  }
  return { added, already: entries.length - added };
}

/** Whether the person with `email` is suppressed in the client now. */
export async function isSuppressed(
  db: Db,
  key: SuppressionKey,
  clientId: string,
  email: string,
): Promise<boolean> {
  const hash = key.hash(email);
  if (!hash) return false;
  const [row] = await db
    .select({ id: suppressions.id })
    .from(suppressions)
    .where(
      and(
        eq(suppressions.clientId, clientId),
        eq(suppressions.emailHash, hash),
        isNull(suppressions.removedAt),
      ),
    )
    .limit(1);
  return row !== undefined;
}

/**
 * The hashes, among those of `emails`, that are suppressed in the client: for imports and syncs, which
 * test a batch at once. Returns a test by address.
 */
export async function suppressedTest(
  db: Db,
  key: SuppressionKey,
  clientId: string,
  emails: readonly (string | null | undefined)[],
): Promise<(email: string | null | undefined) => boolean> {
  const hashes = [...new Set(emails.map((e) => (e ? key.hash(e) : null)).filter((h) => h !== null))];
  const found = new Set<string>();
  for (let i = 0; i < hashes.length; i += INSERT_CHUNK) {
    const chunk = hashes.slice(i, i + INSERT_CHUNK);
    const rows = await db
      .select({ hash: suppressions.emailHash })
      .from(suppressions)
      .where(
        and(
          eq(suppressions.clientId, clientId),
          isNull(suppressions.removedAt),
          sql`${suppressions.emailHash} = any(array(select jsonb_array_elements_text(${JSON.stringify(chunk)}::jsonb)))`,
        ),
      );
    for (const r of rows) found.add(r.hash);
  }
  return (email) => {
    const h = email ? key.hash(email) : null;
    return h !== null && found.has(h);
  };
}

/** Takes an entry off the list, keeping it as history with who, when and why. Null: no such entry in force. */
export async function unsuppress(
  db: Db,
  clientId: string,
  id: number,
  opts: { reason: string; by: string | null },
): Promise<Row | null> {
  const [row] = await db
    .update(suppressions)
    .set({ removedAt: new Date(), removedBy: opts.by, removedReason: opts.reason })
    .where(and(eq(suppressions.id, id), eq(suppressions.clientId, clientId), isNull(suppressions.removedAt)))
    .returning();
  return row ?? null;
}

const creator = alias(users, 'creator');
const remover = alias(users, 'remover');
const nameOf = (u: typeof creator | typeof remover) =>
  sql<string | null>`nullif(btrim(${u.firstName} || ' ' || ${u.lastName}), '')`;

function view(r: { s: Row; createdByName: string | null; removedByName: string | null }): Suppression {
  return {
    id: String(r.s.id),
    email: r.s.email,
    source: r.s.source,
    reason: r.s.reason,
    created_by: r.s.createdBy,
    created_by_name: r.createdByName,
    created_at: r.s.createdAt.toISOString(),
    removed_at: r.s.removedAt?.toISOString() ?? null,
    removed_by_name: r.removedByName,
    removed_reason: r.s.removedReason,
  };
}

function listWhere(clientId: string, q: Pick<SuppressionListQuery, 'state' | 'q'>) {
  return and(
    eq(suppressions.clientId, clientId),
    q.state === 'removed' ? isNotNull(suppressions.removedAt) : isNull(suppressions.removedAt),
    q.q ? ilike(suppressions.email, `%${q.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`) : undefined,
  );
}

/** One page of the list, newest first (keyset on id), with the total of the same filter. */
export async function listSuppressions(
  db: Db,
  clientId: string,
  q: SuppressionListQuery,
): Promise<{ items: Suppression[]; total: number; next_cursor: string | null }> {
  const cursor = q.cursor && /^[0-9]{1,18}$/.test(q.cursor) ? Number(q.cursor) : null;
  const where = listWhere(clientId, q);
  const [rows, [count]] = await Promise.all([
    db
      .select({ s: suppressions, createdByName: nameOf(creator), removedByName: nameOf(remover) })
      .from(suppressions)
      .leftJoin(creator, eq(creator.id, suppressions.createdBy))
      .leftJoin(remover, eq(remover.id, suppressions.removedBy))
      .where(and(where, cursor === null ? undefined : lt(suppressions.id, cursor)))
      .orderBy(desc(suppressions.id))
      .limit(q.limit + 1),
    db
      .select({ n: sql<number>`count(*)::int` })
      .from(suppressions)
      .where(where),
  ]);
  const page = rows.slice(0, q.limit);
  const last = page.at(-1);
  return {
    items: page.map(view),
    total: Number(count?.n ?? 0),
    next_cursor: rows.length > q.limit && last ? String(last.s.id) : null,
  };
}

/** One entry of the client, for the API's answers. */
export async function suppressionById(db: Db, clientId: string, id: number): Promise<Suppression | null> {
  const [row] = await db
    .select({ s: suppressions, createdByName: nameOf(creator), removedByName: nameOf(remover) })
    .from(suppressions)
    .leftJoin(creator, eq(creator.id, suppressions.createdBy))
    .leftJoin(remover, eq(remover.id, suppressions.removedBy))
    .where(and(eq(suppressions.id, id), eq(suppressions.clientId, clientId)));
  return row ? view(row) : null;
}

/** Every entry of the client (in force and removed), oldest first, for the CSV export. */
export async function allSuppressions(db: Db, clientId: string): Promise<Suppression[]> {
  const rows = await db
    .select({ s: suppressions, createdByName: nameOf(creator), removedByName: nameOf(remover) })
    .from(suppressions)
    .leftJoin(creator, eq(creator.id, suppressions.createdBy))
    .leftJoin(remover, eq(remover.id, suppressions.removedBy))
    .where(eq(suppressions.clientId, clientId))
    .orderBy(suppressions.id);
  return rows.map(view);
}

/** The list's functions bound to one app's key (decorated as `app.suppressions`). */
export function createSuppressionService(db: Db, key: SuppressionKey) {
  return {
    key,
    suppress: (clientId: string, email: string, opts: SuppressOptions) =>
      suppress(db, key, clientId, email, opts),
    suppressMany: (clientId: string, emails: readonly string[], opts: SuppressOptions) =>
      suppressMany(db, key, clientId, emails, opts),
    isSuppressed: (clientId: string, email: string) => isSuppressed(db, key, clientId, email),
    suppressedTest: (clientId: string, emails: readonly (string | null | undefined)[]) =>
      suppressedTest(db, key, clientId, emails),
  };
}
export type SuppressionService = ReturnType<typeof createSuppressionService>;
