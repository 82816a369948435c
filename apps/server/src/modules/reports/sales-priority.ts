import { and, eq, sql } from 'drizzle-orm';
import type { SalesPriority, SalesPriorityInput } from '@rally/shared/schemas/report-insights';
import type { Db } from '../../db/client.ts';
import { companies, salesPriorities, targets } from '../../db/schema/index.ts';
import { httpError } from '../../lib/errors.ts';

/**
 * Marking an account (a Rally company) or a target as a sales priority (SPEC.md §7 "Sales priority").
 * Both calls are idempotent: marking twice keeps the first mark, unmarking what is not marked is a
 * no-op. Another client's account or target is not found (404).
 */
async function subjectOf(db: Db, clientId: string, input: SalesPriorityInput) {
  if (input.account_id) {
    const [c] = await db
      .select({ id: companies.id })
      .from(companies)
      .where(and(eq(companies.id, input.account_id), eq(companies.clientId, clientId)));
    if (!c) throw httpError(404, 'Account not found.');
    return { kind: 'account' as const, where: eq(salesPriorities.companyId, c.id), companyId: c.id };
  }
  const [t] = await db
    .select({ id: targets.id })
    .from(targets)
    .where(and(eq(targets.id, input.target_id ?? ''), eq(targets.clientId, clientId)));
  if (!t) throw httpError(404, 'Target not found.');
  return { kind: 'target' as const, where: eq(salesPriorities.targetId, t.id), targetId: t.id };
}

function reply(kind: 'account' | 'target', input: SalesPriorityInput, markedAt: Date | null): SalesPriority {
  return {
    kind,
    account_id: input.account_id ?? null,
    target_id: input.target_id ?? null,
    is_priority: markedAt !== null,
    marked_at: markedAt ? markedAt.toISOString() : null,
  };
}

export async function markPriority(
  db: Db,
  clientId: string,
  userId: string,
  input: SalesPriorityInput,
): Promise<SalesPriority> {
  const subject = await subjectOf(db, clientId, input);
  await db
    .insert(salesPriorities)
    .values({
      clientId,
      companyId: subject.kind === 'account' ? subject.companyId : null,
      targetId: subject.kind === 'target' ? subject.targetId : null,
      markedBy: userId,
    })
    .onConflictDoNothing();
  const [row] = await db
    .select({ createdAt: salesPriorities.createdAt })
    .from(salesPriorities)
    .where(and(eq(salesPriorities.clientId, clientId), subject.where));
  return reply(subject.kind, input, row?.createdAt ?? null);
}

export async function unmarkPriority(
  db: Db,
  clientId: string,
  input: SalesPriorityInput,
): Promise<SalesPriority> {
  const subject = await subjectOf(db, clientId, input);
  await db.delete(salesPriorities).where(and(eq(salesPriorities.clientId, clientId), subject.where));
  return reply(subject.kind, input, null);
}

/** How many marks the client has (for tests and the demo). */
export async function countPriorities(db: Db, clientId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(salesPriorities)
    .where(eq(salesPriorities.clientId, clientId));
  return r?.n ?? 0;
}
