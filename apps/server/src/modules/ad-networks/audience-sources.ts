import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { cadences, cohorts, journeyStages } from '../../db/schema/index.ts';
import { fieldError } from '../../lib/errors.ts';

export type SourceKind = 'cohort' | 'journey_stage' | 'cadence';
export type SourceSet = { cohortId: string | null; journeyStageId: string | null; cadenceId: number | null };

/**
 * A cohort, journey stage or cadence of this client by id: its name and the audience columns it
 * sets; null when it is not this client's; a 422 naming `field` when the id has the wrong form.
 */
export async function sourceOf(
  db: Db,
  clientId: string,
  kind: SourceKind,
  id: string | number,
  field: string,
): Promise<{ name: string; set: SourceSet } | null> {
  const uuid = z.uuid().safeParse(String(id));
  if (kind !== 'cadence' && !uuid.success)
    throw fieldError(field, `must be the id (UUID) of a ${kind.replace('_', ' ')}`);
  if (kind === 'cohort') {
    const [c] = await db
      .select({ name: cohorts.name })
      .from(cohorts)
      .where(and(eq(cohorts.id, String(id)), eq(cohorts.clientId, clientId)));
    return c ? { name: c.name, set: { cohortId: String(id), journeyStageId: null, cadenceId: null } } : null;
  }
  if (kind === 'journey_stage') {
    const [s] = await db
      .select({ name: journeyStages.name })
      .from(journeyStages)
      .where(and(eq(journeyStages.id, String(id)), eq(journeyStages.clientId, clientId)));
    return s ? { name: s.name, set: { cohortId: null, journeyStageId: String(id), cadenceId: null } } : null;
  }
  const n = Number(id);
  if (!Number.isSafeInteger(n) || n < 1)
    throw fieldError(field, 'must be the id (a whole number) of a cadence');
  const [c] = await db
    .select({ name: cadences.name })
    .from(cadences)
    .where(and(eq(cadences.id, n), eq(cadences.clientId, clientId)));
  return c ? { name: c.name, set: { cohortId: null, journeyStageId: null, cadenceId: n } } : null;
}
