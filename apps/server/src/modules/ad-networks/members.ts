import { and, eq, isNotNull, sql } from 'drizzle-orm';
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
 * The e-mail hashes an audience should hold now, from its source: a cohort's members, the members
 * of the accounts standing in a journey stage (decision 0010: an account is its company, or the
 * person when there is none), or a cadence's active targets. Addresses are hashed here and go no
 * further; duplicates and what is not an address fall away.
 */
export async function desiredHashes(db: Db, audience: Audience): Promise<Set<string>> {
  const emails = await sourceEmails(db, audience);
  const out = new Set<string>();
  for (const e of emails) {
    const h = hashEmail(e);
    if (h) out.add(h);
  }
  return out;
}

async function sourceEmails(db: Db, a: Audience): Promise<string[]> {
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
          isNotNull(prospects.email),
        ),
      );
    return rows.map((r) => r.email ?? '');
  }
  return [];
}
