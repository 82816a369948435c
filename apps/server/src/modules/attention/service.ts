import { sql } from 'drizzle-orm';
import type { RequiredAttention, RequiredAttentions } from '@rally/shared/schemas/attention';
import { SOURCE_LABELS } from '@rally/shared/schemas/integrations';
import type { Db } from '../../db/client.ts';

type Row = Record<string, unknown>;
const rowsOf = (r: unknown): Row[] => (Array.isArray(r) ? r : ((r as { rows?: Row[] }).rows ?? [])) as Row[];

/** At most this many items of one kind (a list to act on, not a report). */
const PER_KIND = 20;

const cents = (n: number, currency: string) => {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(
      n / 100,
    );
  } catch {
    return `${(n / 100).toFixed(2)} ${currency.toUpperCase()}`;
  }
};

const listDays = (days: number[]) => {
  const shown = days.slice(0, 5).map(String);
  const more = days.length > 5 ? ` and ${days.length - 5} more` : '';
  if (shown.length === 1) return `day ${shown[0]}`;
  return `days ${shown.slice(0, -1).join(', ')}${more ? `, ${shown.at(-1)}${more}` : ` and ${shown.at(-1)}`}`;
};

/**
 * What needs a person now in one client (SPEC.md §7 "required_attentions"), most urgent first:
 * inactive integrations (with their reason), a failing card (only for `billing_details.read`), cadences
 * with ads on and a day without content, journeys of active cohorts with no stage or a stage without
 * ads. Reps without a photo are a step of the setup checklist (setup.ts, issue 42 item 5), not a
 * problem listed here once per rep.
 */
export async function requiredAttentions(
  db: Db,
  clientId: string,
  opts: { billing: boolean; now?: Date },
): Promise<RequiredAttentions> {
  const now = opts.now ?? new Date();
  const [integrations, invoices, card, cadences, journeys] = await Promise.all([
    db.execute(sql`
      select id, source, last_error from integrations
       where client_id = ${clientId} and not is_active order by id`),
    opts.billing
      ? db.execute(sql`
          select id, number, amount_cents, currency, status, failure_reason, action_required
            from invoices
           where client_id = ${clientId}
             and (status = 'failed' or (status = 'open' and action_required))
           order by created_at desc limit ${PER_KIND}`)
      : Promise.resolve([]),
    opts.billing
      ? db.execute(sql`
          select card_brand, card_last4, card_exp_month, card_exp_year from billing_accounts
           where client_id = ${clientId} and card_last4 is not null`)
      : Promise.resolve([]),
    db.execute(sql`
      select c.id, c.name, c.integration_id,
             array_agg(d.day_number order by d.day_number) as days
        from cadences c
        join cadence_days d on d.cadence_id = c.id and d.client_id = ${clientId}
       where c.client_id = ${clientId} and c.kind = 'sequence' and c.status = 'active' and c.is_super
         and jsonb_array_length(d.content_days) = 0
       group by c.id, c.name, c.integration_id
       order by c.name, c.id limit ${PER_KIND}`),
    db.execute(sql`
      select j.id, j.name, j.cohort_id,
             (select count(*) from journey_stages s where s.journey_id = j.id) as stages,
             array(select s.name from journey_stages s
                    where s.journey_id = j.id and jsonb_array_length(s.content_ids) = 0
                    order by s.position) as empty
        from journeys j
        join cohorts co on co.id = j.cohort_id and co.client_id = ${clientId} and co.status = 'active'
       where j.client_id = ${clientId}
         and (not exists (select 1 from journey_stages s where s.journey_id = j.id)
              or exists (select 1 from journey_stages s
                          where s.journey_id = j.id and jsonb_array_length(s.content_ids) = 0))
       order by j.name, j.id limit ${PER_KIND}`),
  ]);

  const items: RequiredAttention[] = [];
  for (const r of rowsOf(integrations)) {
    const name = SOURCE_LABELS[String(r.source)] ?? String(r.source);
    const reason = r.last_error ? String(r.last_error).trim() : 'It was disconnected.';
    items.push({
      id: `integration_inactive:${String(r.id)}`,
      kind: 'integration_inactive',
      message: `${name} is inactive: ${reason.replace(/\.?$/, '.')} Nothing syncs from it until it is reconnected.`,
      link: { path: '/settings/connections', label: `Reconnect ${name}` },
    });
  }
  for (const r of rowsOf(invoices)) {
    const amount = cents(Number(r.amount_cents), String(r.currency));
    const message = r.action_required
      ? `Invoice ${String(r.number)} (${amount}) waits for your bank's confirmation.`
      : `The charge of invoice ${String(r.number)} (${amount}) failed${
          r.failure_reason ? `: ${String(r.failure_reason).replace(/\.$/, '')}` : ''
        }. Update the card or pay it now.`;
    items.push({
      id: `card_failing:invoice:${String(r.id)}`,
      kind: 'card_failing',
      message,
      link: { path: '/settings/billing', label: 'Open billing' },
    });
  }
  const [c] = rowsOf(card);
  if (c) {
    const year = Number(c.card_exp_year);
    const month = Number(c.card_exp_month);
    // A card is good through the last day of its expiry month.
    const expired =
      year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1);
    if (expired)
      items.push({
        id: 'card_failing:expired',
        kind: 'card_failing',
        message: `The card on file (${String(c.card_brand)} ending ${String(c.card_last4)}) expired in ${String(month).padStart(2, '0')}/${year}: the next charge will fail.`,
        link: { path: '/settings/billing', label: 'Update the card' },
      });
  }
  for (const r of rowsOf(cadences)) {
    const days = (r.days as number[]).map(Number);
    items.push({
      id: `cadence_day_without_content:${String(r.id)}`,
      kind: 'cadence_day_without_content',
      message: `${String(r.name)} has ads on, but ${listDays(days)} ${days.length === 1 ? 'has' : 'have'} no content: its prospects see no ad then.`,
      link: {
        path: `/cadence/${String(r.id)}?integration_id=${String(r.integration_id)}`,
        label: 'Add content',
      },
    });
  }
  for (const r of rowsOf(journeys)) {
    const empty = (r.empty as string[]).map(String);
    const names = empty.slice(0, 3).map((n) => `“${n}”`);
    const more = empty.length > 3 ? ` and ${empty.length - 3} more` : '';
    const what =
      Number(r.stages) === 0
        ? 'has no stage yet: its accounts see no ad.'
        : `has ${empty.length === 1 ? 'a stage' : 'stages'} without ads (${names.join(', ')}${more}): accounts there see none.`;
    items.push({
      id: `journey_without_content:${String(r.id)}`,
      kind: 'journey_without_content',
      message: `The journey ${String(r.name)} ${what}`,
      link: { path: `/cohorts/${String(r.cohort_id)}/journey`, label: 'Open the journey' },
    });
  }
  return { items, total: items.length };
}
