import { CADENCE_STATUS_LABELS, CADENCE_STATUS_NEXT } from '@rally/shared/schemas/cadences';
import type {
  Cadence,
  CadenceCounts,
  CadenceDay,
  CadenceListItem,
  CadenceStatusValue,
  SuperAudience,
  UpdateCadenceBody,
} from '@rally/shared/schemas/cadences';
import type { Db } from '../../db/client.ts';
import { FieldError, httpError } from '../../lib/errors.ts';
import type { FieldProblem } from '../../lib/errors.ts';
import * as repo from './repository.ts';
import type { CadenceRow, Counts } from './repository.ts';

/** Cadence rules (ARCHITECTURE.md §5): what may be saved, and how the status moves. */

const zero = (): Counts => ({ total: 0, active: 0, contacted: 0, super: 0 });
const add = (a: Counts, b: Counts): Counts => ({
  total: a.total + b.total,
  active: a.active + b.active,
  contacted: a.contacted + b.contacted,
  super: a.super + b.super,
});

function base(row: CadenceRow, counts: CadenceCounts) {
  return {
    id: row.id,
    client_id: row.clientId,
    integration_id: row.integrationId,
    source: row.source,
    name: row.name,
    status: row.status,
    is_super: row.isSuper,
    is_syncing: row.isSyncing,
    last_synced_at: row.lastSyncedAt?.toISOString() ?? null,
    owner_id: row.ownerId,
    owner: row.owner
      ? {
          id: row.owner.id,
          first_name: row.owner.firstName,
          last_name: row.owner.lastName,
          photo_url: row.owner.photoUrl,
        }
      : null,
    selected_sdrs: row.selectedSdrs,
    counts,
  };
}

export async function listCadences(db: Db, clientId: string): Promise<CadenceListItem[]> {
  const [rows, counts] = await Promise.all([
    repo.listCadences(db, clientId),
    repo.targetCounts(db, clientId),
  ]);
  const days = await repo.dayCountsByCadence(
    db,
    rows.map((r) => r.id),
  );
  const byCadence = new Map<number, Counts>();
  for (const c of counts) byCadence.set(c.cadenceId, add(byCadence.get(c.cadenceId) ?? zero(), c));
  return rows.map((r) => ({
    ...base(r, byCadence.get(r.id) ?? zero()),
    day_count: days.get(r.id) ?? 0,
  }));
}

export async function getCadence(
  db: Db,
  clientId: string,
  id: number,
  integrationId?: number,
): Promise<Cadence | null> {
  const row = await repo.findCadence(db, clientId, id, integrationId);
  if (!row) return null;
  const [dayRows, counts] = await Promise.all([
    repo.listDays(db, clientId, id),
    repo.targetCounts(db, clientId, id),
  ]);
  const countOf = new Map(counts.map((c) => [c.dayNumber, c]));
  const days = new Map<number, CadenceDay>();
  const dayOf = (dayNumber: number, contentDays: CadenceDay['content_days']): CadenceDay => {
    const c = countOf.get(dayNumber) ?? zero();
    return {
      day_number: dayNumber,
      count_total: c.total,
      count_active: c.active,
      count_contacted: c.contacted,
      count_super: c.super,
      content_days: contentDays,
    };
  };
  for (const d of dayRows) days.set(d.dayNumber, dayOf(d.dayNumber, d.contentDays));
  // The stores add a day for every target's day; this only keeps the totals whole if one is missing.
  for (const c of counts) if (!days.has(c.dayNumber)) days.set(c.dayNumber, dayOf(c.dayNumber, []));
  const list = [...days.values()].sort((a, b) => a.day_number - b.day_number);
  return { ...base(row, counts.reduce<Counts>(add, zero())), days: list };
}

/**
 * Saves the cadence: sales reps must be the client's, content the client's, each day a day of this
 * cadence, and `move_to_day` must name another of its days. Every problem is reported at once, by
 * field. The cadence row is locked so concurrent saves do not interleave.
 */
export async function updateCadence(
  db: Db,
  clientId: string,
  id: number,
  body: UpdateCadenceBody,
  integrationId?: number,
): Promise<Cadence | null> {
  const found = await db.transaction(async (tx) => {
    if (!(await repo.lockCadence(tx, clientId, id))) return false;
    const row = await repo.findCadence(tx, clientId, id, integrationId);
    if (!row) return false;
    const problems: FieldProblem[] = [];

    const sdrs = body.selected_sdrs ? [...new Set(body.selected_sdrs)] : undefined;
    if (sdrs?.length) {
      const known = await repo.existingRepIds(tx, clientId, sdrs);
      sdrs.forEach((rep, i) => {
        if (!known.has(rep))
          problems.push({ field: `body.selected_sdrs.${i}`, message: 'is not a sales rep of this client' });
      });
    }

    if (body.days?.length) {
      const existing = new Set((await repo.listDays(tx, clientId, id)).map((d) => d.dayNumber));
      const contentIds = [...new Set(body.days.flatMap((d) => d.content_days.map((c) => c.content_id)))];
      const knownContent = await repo.existingContentIds(tx, clientId, contentIds);
      const seenDays = new Set<number>();
      body.days.forEach((day, i) => {
        const at = `body.days.${i}`;
        if (!existing.has(day.day_number)) {
          problems.push({ field: `${at}.day_number`, message: 'is not a day of this cadence' });
        } else if (seenDays.has(day.day_number)) {
          problems.push({ field: `${at}.day_number`, message: 'is given twice' });
        }
        seenDays.add(day.day_number);
        const seenContent = new Set<string>();
        day.content_days.forEach((cd, j) => {
          const cat = `${at}.content_days.${j}`;
          if (!knownContent.has(cd.content_id)) {
            problems.push({ field: `${cat}.content_id`, message: 'is not a content item of this client' });
          } else if (seenContent.has(cd.content_id)) {
            problems.push({ field: `${cat}.content_id`, message: 'is already assigned to this day' });
          }
          seenContent.add(cd.content_id);
          cd.day_transition_actions.forEach((a, k) => {
            if (a.action_type !== 'move_to_day' || a.target_day_number === undefined) return;
            const field = `${cat}.day_transition_actions.${k}.target_day_number`;
            if (!existing.has(a.target_day_number)) {
              problems.push({ field, message: 'is not a day of this cadence' });
            } else if (a.target_day_number === day.day_number) {
              problems.push({ field, message: 'must be another day than the one the target is on' });
            }
          });
        });
      });
    }
    if (problems.length) throw new FieldError(problems);

    if (body.name !== undefined || body.is_super !== undefined || sdrs !== undefined) {
      await repo.updateCadenceFields(tx, clientId, id, {
        ...(body.name !== undefined ? { name: body.name } : {}),
        ...(body.is_super !== undefined ? { isSuper: body.is_super } : {}),
        ...(sdrs !== undefined ? { selectedSdrs: sdrs } : {}),
      });
    }
    for (const day of body.days ?? []) {
      // finish carries no day; drop a stray one so the engine reads a clean action.
      const contentDays = day.content_days.map((cd) => ({
        content_id: cd.content_id,
        day_transition_actions: cd.day_transition_actions.map((a) =>
          a.action_type === 'move_to_day'
            ? a
            : {
                action_type: a.action_type,
                action_rule: a.action_rule,
                action_rule_value: a.action_rule_value,
              },
        ),
      }));
      await repo.setDayContent(tx, clientId, id, day.day_number, contentDays);
    }
    return true;
  });
  return found ? getCadence(db, clientId, id) : null;
}

/**
 * `PUT /sc/cadence/{id}/change_status`: draft → active ⇄ paused → finished. Asking for the status
 * the cadence already has changes nothing. A move the rules do not allow is a 409 naming both.
 */
export async function changeStatus(
  db: Db,
  clientId: string,
  id: number,
  integrationId: number,
  to: CadenceStatusValue,
): Promise<void> {
  const from = (Object.keys(CADENCE_STATUS_NEXT) as CadenceStatusValue[]).filter((s) =>
    CADENCE_STATUS_NEXT[s].includes(to),
  );
  if (await repo.changeStatus(db, clientId, id, integrationId, from, to)) return;
  const row = await repo.findCadence(db, clientId, id, integrationId);
  if (!row) throw httpError(404, 'Cadence not found.');
  if (row.status === to) return;
  const allowed = CADENCE_STATUS_NEXT[row.status].map((s) => CADENCE_STATUS_LABELS[s].toLowerCase());
  throw httpError(
    409,
    `This cadence is ${row.status} and cannot become ${to}${
      allowed.length ? `: it can only become ${allowed.join(' or ')}` : ': it is finished for good'
    }.`,
  );
}

export async function superAudience(
  db: Db,
  clientId: string,
  q: { page: number; page_size: number; cadence_id?: number },
): Promise<SuperAudience> {
  const { rows, total } = await repo.superAudience(db, clientId, {
    limit: q.page_size,
    offset: (q.page - 1) * q.page_size,
    cadenceId: q.cadence_id,
  });
  return {
    page: q.page,
    page_size: q.page_size,
    total,
    items: rows.map((r) => ({
      target_id: r.targetId,
      prospect_id: r.prospectId,
      first_name: r.firstName,
      last_name: r.lastName,
      email: r.email,
      title: r.title,
      company_name: r.companyName,
      cadence_id: r.cadenceId,
      cadence_name: r.cadenceName,
      sales_rep_id: r.salesRepId,
      sales_rep_name:
        r.salesRepId === null ? null : `${r.repFirstName ?? ''} ${r.repLastName ?? ''}`.trim() || null,
      impressions: r.impressions,
      clicks: r.clicks,
      super_date: r.superDate.toISOString(),
    })),
  };
}
