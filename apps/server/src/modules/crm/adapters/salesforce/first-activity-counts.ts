import type { CrmPage, RemoteActivityCount } from '../../port.ts';

type Row = Record<string, unknown> & { Id: string };

/** Totals handed to the engine per page. */
const PAGE = 1000;

/**
 * The first activity sync (no cursor): every task and event read once, 2,000 a call (queryAll, so
 * archived ones count; deleted ones left out), and counted here. The incremental path's way (the
 * changed tasks, then every task and event of their contacts, 200 contacts a query) costs up to 20
 * sub-queries per 2,000 tasks on a first sync (issue 40 item 7: an org's whole Task table). Only the
 * last page carries the newest task's SystemModstamp, so the cursor moves once every total is stored;
 * a sync stopped half-way counts again from the start.
 */
export async function* firstActivityCounts(
  read: (object: 'Task' | 'Event', fields: string) => AsyncIterable<CrmPage<Row>>,
  sfTimeToIso: (v: unknown) => string | null,
): AsyncGenerator<CrmPage<RemoteActivityCount>> {
  const totals = new Map<string, RemoteActivityCount>();
  let newest: string | null = null;
  const bump = (contact: string, type: string, at: string | null) => {
    const key = `${contact}\u0000${type}`;
    const t = totals.get(key) ?? {
      contactExternalId: contact,
      activityType: type,
      count: 0,
      lastActivityAt: null,
      changedAt: null,
    };
    t.count += 1;
    if (at && (!t.lastActivityAt || at > t.lastActivityAt)) t.lastActivityAt = at;
    totals.set(key, t);
  };
  for await (const page of read('Task', 'Id, WhoId, TaskSubtype, CreatedDate, SystemModstamp')) {
    for (const t of page.items) {
      if (typeof t.WhoId !== 'string' || !t.WhoId) continue;
      const subtype = t.TaskSubtype;
      bump(
        t.WhoId,
        subtype === 'Call' ? 'Call' : subtype === 'Email' ? 'Email' : 'Task',
        sfTimeToIso(t.CreatedDate),
      );
      const at = sfTimeToIso(t.SystemModstamp);
      if (at && (!newest || at > newest)) newest = at;
    }
  }
  // Events do not move the cursor: later syncs follow changed tasks (as before).
  for await (const page of read('Event', 'Id, WhoId, CreatedDate')) {
    for (const e of page.items) {
      if (typeof e.WhoId === 'string' && e.WhoId) bump(e.WhoId, 'Meeting', sfTimeToIso(e.CreatedDate));
    }
  }
  const items = [...totals.values()];
  for (let i = 0; i < items.length; i += PAGE) {
    const last = i + PAGE >= items.length;
    yield {
      items: items.slice(i, i + PAGE).map((t) => ({ ...t, changedAt: last ? newest : null })),
      total: null,
    };
  }
}
