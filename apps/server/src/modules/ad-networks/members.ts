import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { suppressedSql } from '../suppressions/key.ts';
import type { SuppressionKey } from '../suppressions/key.ts';
import type { SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { adAudiences } from '../../db/schema/index.ts';
import {
  cohortMembers,
  journeyAccounts,
  journeyStages,
  journeys,
  prospects,
  targets,
} from '../../db/schema/index.ts';
import { hashEmail } from './hashing.ts';

type Audience = typeof adAudiences.$inferSelect;

/**
 * Not held out of the cohort's randomised holdout (issue 45): a held-out person sees no ad anywhere,
 * so they stay out of the networks' audiences too.
 */
function notHeldOut(cohortId: SQL | string) {
  return sql`not exists (select 1 from targets ht join cohorts hc on hc.cadence_id = ht.cadence_id
    where hc.id = ${cohortId} and ht.prospect_id = ${prospects.id} and ht.holdout_group = 'held_out')`;
}

/**
 * The e-mail hashes an audience should hold now, from its source: a cohort's members, the members
 * of the accounts standing in a journey stage (decision 0010: an account is its company, or the
 * person when there is none), or a cadence's active targets; held-out and suppressed people never. Addresses are hashed here and go no
 * further; duplicates and what is not an address fall away.
 */
export async function desiredHashes(
  db: Db,
  audience: Audience,
  hash: (raw: string) => string | null = hashEmail,
  suppressionKey?: SuppressionKey,
): Promise<Set<string>> {
  const emails = await sourceEmails(db, audience, suppressionKey);
  const out = new Set<string>();
  for (const e of emails) {
    const h = hash(e);
    if (h) out.add(h);
  }
  return out;
}

/** Not on the client's suppression list (issue 44, decision 0027): they leave every audience. */
function notSuppressed(key: SuppressionKey | undefined, clientId: string) {
  return key ? sql`not ${suppressedSql(key, sql`${clientId}::uuid`, sql`${prospects.email}`)}` : undefined;
}

async function sourceEmails(db: Db, a: Audience, key?: SuppressionKey): Promise<string[]> {
  const clientId = a.clientId;
  if (a.sourceKind === 'cohort' && a.cohortId) {
    const rows = await db
      .select({ email: prospects.email })
      .from(cohortMembers)
      .innerJoin(prospects, eq(prospects.id, cohortMembers.prospectId))
      .where(
        and(
          eq(cohortMembers.cohortId, a.cohortId),
          eq(cohortMembers.clientId, clientId),
          isNotNull(prospects.email),
          notHeldOut(a.cohortId),
          notSuppressed(key, clientId),
        ),
      );
    return rows.map((r) => r.email ?? '');
  }
  if (a.sourceKind === 'journey_stage' && a.journeyStageId) {
    const rows = await db
      .select({ email: prospects.email })
      .from(journeyStages)
      .innerJoin(journeys, eq(journeys.id, journeyStages.journeyId))
      .innerJoin(
        journeyAccounts,
        and(eq(journeyAccounts.journeyId, journeys.id), eq(journeyAccounts.stageId, journeyStages.id)),
      )
      .innerJoin(
        cohortMembers,
        and(
          eq(cohortMembers.cohortId, journeys.cohortId),
          eq(
            sql`coalesce(${cohortMembers.companyId}, ${cohortMembers.prospectId})`,
            journeyAccounts.accountId,
          ),
        ),
      )
      .innerJoin(prospects, eq(prospects.id, cohortMembers.prospectId))
      .where(
        and(
          eq(journeyStages.id, a.journeyStageId),
          eq(journeyStages.clientId, clientId),
          isNotNull(prospects.email),
          notHeldOut(sql`${journeys.cohortId}`),
          notSuppressed(key, clientId),
        ),
      );
    return rows.map((r) => r.email ?? '');
  }
  if (a.sourceKind === 'cadence' && a.cadenceId !== null) {
    const rows = await db
      .select({ email: prospects.email })
      .from(targets)
      .innerJoin(prospects, eq(prospects.id, targets.prospectId))
      .where(
        and(
          eq(targets.cadenceId, a.cadenceId),
          eq(targets.clientId, clientId),
          eq(targets.isActive, true),
          sql`${targets.holdoutGroup} is distinct from 'held_out'`,
          isNotNull(prospects.email),
          notSuppressed(key, clientId),
        ),
      );
    return rows.map((r) => r.email ?? '');
  }
  return [];
}
