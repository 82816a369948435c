import { and, eq, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import type { AdAudiencePool, adAudiences } from '../../db/schema/index.ts';
import { cadences, cohorts, journeyStages, journeys, salesReps } from '../../db/schema/index.ts';
import type { SuppressionKey } from '../suppressions/key.ts';
import { desiredHashes } from './members.ts';

type Audience = typeof adAudiences.$inferSelect;
/** What desiredHashes reads of an audience: its tenant and its one source. */
export type AudienceSource = Pick<
  Audience,
  'clientId' | 'sourceKind' | 'cohortId' | 'journeyStageId' | 'cadenceId'
>;
type Hash = (raw: string) => string | null;

/** A pool an audience could join, before counting (decision 0034). */
export type PoolCandidate = Pick<AdAudiencePool, 'kind' | 'name' | 'cohortId' | 'cadenceIds'>;

const asAudience = (s: AudienceSource) => s as Audience;

/**
 * The pool of a journey stage (its journey's cohort) or of a cadence (every cadence of the same rep,
 * itself included; the cohorts' hidden cadences are not a rep's). A cohort, or a cadence without a
 * rep or whose rep has no other cadence, has none.
 */
export async function poolCandidate(db: Db, s: AudienceSource): Promise<PoolCandidate | null> {
  if (s.sourceKind === 'journey_stage' && s.journeyStageId) {
    const [row] = await db
      .select({ id: cohorts.id, name: cohorts.name })
      .from(journeyStages)
      .innerJoin(journeys, eq(journeys.id, journeyStages.journeyId))
      .innerJoin(cohorts, eq(cohorts.id, journeys.cohortId))
      .where(and(eq(journeyStages.id, s.journeyStageId), eq(journeyStages.clientId, s.clientId)));
    return row ? { kind: 'cohort', name: `cohort “${row.name}”`, cohortId: row.id } : null;
  }
  if (s.sourceKind === 'cadence' && s.cadenceId !== null) {
    const [own] = await db
      .select({ ownerId: cadences.ownerId, first: salesReps.firstName, last: salesReps.lastName })
      .from(cadences)
      .leftJoin(salesReps, eq(salesReps.id, cadences.ownerId))
      .where(and(eq(cadences.id, s.cadenceId), eq(cadences.clientId, s.clientId)));
    if (!own?.ownerId) return null;
    const siblings = await db
      .select({ id: cadences.id })
      .from(cadences)
      .where(
        and(
          eq(cadences.clientId, s.clientId),
          eq(cadences.ownerId, own.ownerId),
          ne(cadences.kind, 'cohort'),
        ),
      )
      .orderBy(cadences.id);
    if (siblings.length < 2) return null;
    const rep = `${own.first ?? ''} ${own.last ?? ''}`.trim() || 'the rep';
    return { kind: 'rep_cadences', name: `${rep}’s cadences`, cadenceIds: siblings.map((c) => c.id) };
  }
  return null;
}

/** A source's own hashes (a preview has no audience row yet). */
export function sourceHashes(db: Db, s: AudienceSource, hash?: Hash, key?: SuppressionKey) {
  return desiredHashes(db, asAudience(s), hash, key);
}

/** The pool's hashes: the cohort's members, or the union of the rep's cadences' active prospects. */
export async function poolHashes(
  db: Db,
  s: AudienceSource,
  pool: PoolCandidate,
  hash?: Hash,
  key?: SuppressionKey,
): Promise<Set<string>> {
  const base = { clientId: s.clientId, cohortId: null, journeyStageId: null, cadenceId: null };
  if (pool.kind === 'cohort' && pool.cohortId)
    return desiredHashes(
      db,
      asAudience({ ...base, sourceKind: 'cohort', cohortId: pool.cohortId }),
      hash,
      key,
    );
  const out = new Set<string>();
  for (const cadenceId of pool.cadenceIds ?? []) {
    const part = await desiredHashes(
      db,
      asAudience({ ...base, sourceKind: 'cadence', cadenceId }),
      hash,
      key,
    );
    for (const h of part) out.add(h);
  }
  return out;
}

/** "stage “Engaged”", "cadence “Q3 outbound”": the source in the sentences below. */
export function sourceWords(s: Pick<Audience, 'sourceKind' | 'name'>): string {
  const kind = s.sourceKind === 'journey_stage' ? 'stage' : s.sourceKind;
  return `${kind} “${s.name}”`;
}

const people = (n: number) => `${n} ${n === 1 ? 'person' : 'people'}`;

/** Why it is pooled: "Pooled with cohort “X” (1,200 people) because stage “Y” has 40 people; Meta needs 100." */
export function pooledNote(source: string, pool: AdAudiencePool, network: string): string {
  return `Pooled with ${pool.name} (${people(pool.poolCount)}) because ${source} has ${people(pool.sourceCount)}; ${network} needs ${pool.minimum}.`;
}

/** Held although pooled: both counts named. */
export function poolShortReason(source: string, pool: AdAudiencePool, network: string): string {
  return `Held: ${source} has ${people(pool.sourceCount)} and even pooled with ${pool.name} there are only ${people(pool.poolCount)}; ${network} needs at least ${pool.minimum}.`;
}

/** Out of the pool: the source reached the minimum on its own. */
export function unpooledNote(
  source: string,
  count: number,
  poolName: string,
  network: string,
  minimum: number,
) {
  return `Stopped pooling with ${poolName}: ${source} has ${people(count)} now, at or over ${network}’s minimum of ${minimum}, so only its own members are sent.`;
}

/** The owner switched pooling off. */
export function poolOffNote(source: string, poolName: string) {
  return `No longer pooled with ${poolName}: pooling was switched off, so only ${source}’s own members are sent.`;
}
