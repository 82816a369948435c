import { Paper, Text } from '@mantine/core';
import { IconInfoCircle } from '@tabler/icons-react';
import { formatMultiple } from '@rally/shared';
import type { ValueReport } from '@rally/shared/schemas/reports';
import { useValueReport } from '../api/get-reports.ts';
import type { Range } from '../api/get-reports.ts';
import { fullMoney } from './opportunity-tables.tsx';
import { LiftSentence } from './lift-panel.tsx';

/** The attribution window, said once above the numbers it shapes. */
export function WindowNote({ windowDays }: { windowDays: number }) {
  return (
    <Text size="sm" c="dimmed">
      <IconInfoCircle size={14} style={{ verticalAlign: -2 }} /> An engagement counts for an opportunity when
      it came within {windowDays} days before the opportunity was created, moved forward or won (the window is
      a client setting).
    </Text>
  );
}

/** A multiple of the spend, abbreviated as every number (SPEC.md §9): 140866.7 is "140.9K×". */
const times = formatMultiple;

/** What was spent, in words: the networks' spend beside Rally's fee (issue 39), each named. */
export function spendWords(v: ValueReport): string {
  const parts: string[] = [];
  if (v.network_spend_cents > 0)
    parts.push(`${fullMoney(v.network_spend_cents, v.spend_currency)} network spend`);
  if (v.spend_cents > 0)
    parts.push(
      `${fullMoney(v.spend_cents, v.spend_currency)} Rally fee (${v.superprospects_billed} ${
        v.superprospects_billed === 1 ? 'superprospect' : 'superprospects'
      })`,
    );
  return parts.join(' and ');
}

/**
 * The return on what the client spent in the period — Rally's fee for superprospects and what the ad
 * networks reported spending (value_report) — in one line, with the holdout's lift when there is one.
 */
export function ValueLine({ clientId, range }: { clientId: string; range: Range }) {
  const q = useValueReport(clientId, range);
  if (!q.data) return null;
  const v = q.data;
  const spent = v.spend_cents + v.network_spend_cents;
  const both = v.network_spend_cents > 0 && v.spend_cents > 0;
  const other = v.network_spend_other.map((o) => fullMoney(o.cents, o.currency)).join(' and ');
  return (
    <Paper withBorder radius="md" p="md" bg="indigo.0">
      <Text size="sm">
        <b>Attributed:</b>{' '}
        {spent > 0 ? (
          <>
            <b>{spendWords(v)}</b> in this period {both ? 'were' : 'was'} behind{' '}
            <b>{times(v.pipeline_per_spend)}</b> {both ? 'their' : 'its'} cost in pipeline generated and{' '}
            <b>{times(v.revenue_per_spend)}</b> in revenue influenced.
          </>
        ) : (
          <>
            Nothing was spent in this period (no superprospect billed, no network spend), so there is nothing
            to weigh the results against.
          </>
        )}
        {other && <> Network spend in other currencies ({other}) is not weighed in.</>}
      </Text>
      <LiftSentence clientId={clientId} />
    </Paper>
  );
}
