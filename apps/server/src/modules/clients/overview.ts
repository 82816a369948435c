import type {
  ClientHealth,
  ClientOverviewReply,
  ClientOverviewRow,
} from '@rally/shared/schemas/client-overview';
import type { Db } from '../../db/client.ts';
import { requiredAttentions, setupChecklist } from '../attention/index.ts';
import { summary, superprospectSpend } from '../reports/index.ts';

const DAY_MS = 86_400_000;
/** Problems that stop results now (ads stop or nothing syncs), not just something left to do. */
const AT_RISK = new Set(['integration_inactive', 'card_failing']);

export type OverviewMembership = {
  id: string;
  name: string;
  parentId: string | null;
  role: string;
  permissions: readonly string[];
};

/**
 * One client's row of the agency view (issue 42 item 13), from the same services the client's own
 * screens use, so the numbers are the ones a user finds there: Revenue's summary (superprospects,
 * pipeline generated), the value report's spend, the feed's attention list and setup checklist. A
 * number the role may not see there is null here.
 */
async function overviewRow(
  db: Db,
  m: OverviewMembership,
  days: number,
  now: Date,
): Promise<ClientOverviewRow> {
  const can = (p: string) => m.permissions.includes(p);
  const from = new Date(now.getTime() - days * DAY_MS);
  const range = { from: Math.floor(from.getTime() / 1000), to: Math.floor(now.getTime() / 1000) };
  const [report, spend, attention, setup] = await Promise.all([
    can('reports.read') ? summary(db, m.id, range) : null,
    can('billing_details.read') ? superprospectSpend(db, m.id, { from, to: now }) : null,
    requiredAttentions(db, m.id, { billing: can('billing_details.read'), now }),
    setupChecklist(db, m.id, {
      billing: can('billing_details.read'),
      integrations: can('integration.write'),
    }),
  ]);
  const undone = setup.steps.filter((s) => !s.done);
  const health: ClientHealth = attention.items.some((i) => AT_RISK.has(i.kind))
    ? 'at_risk'
    : attention.items.length || undone.length
      ? 'needs_attention'
      : 'healthy';
  const first = attention.items[0];
  const step = undone[0];
  return {
    id: m.id,
    name: m.name,
    parent_id: m.parentId,
    role: m.role,
    superprospects: report ? report.new_superprospects : null,
    spend_cents: spend ? spend.cents : null,
    pipeline_cents: report ? report.pipeline_generated_cents : null,
    currency: report?.currency ?? spend?.currency ?? 'USD',
    health,
    attention_count: attention.items.length + undone.length,
    attention: first
      ? { message: first.message, path: first.link.path, label: first.link.label }
      : step
        ? { message: step.detail, path: step.link.path, label: step.link.label }
        : null,
  };
}

/** Every client of `memberships`, one after another (each row runs its own queries side by side). */
export async function clientOverview(
  db: Db,
  memberships: OverviewMembership[],
  days: number,
  now = new Date(),
): Promise<ClientOverviewReply> {
  const clients: ClientOverviewRow[] = [];
  for (const m of memberships) clients.push(await overviewRow(db, m, days, now));
  return { days, clients };
}
