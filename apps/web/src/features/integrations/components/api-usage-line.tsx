import { Text } from '@mantine/core';
import { useState } from 'react';
import type { Integration } from '@rally/shared/schemas/auth';
import { formatCount } from '@rally/shared/utils/numbers';

/** The share of Salesforce's daily allocation Rally leaves to the org's other integrations (server: api-budget.ts). */
const SALESFORCE_STOP_AT = 85;

/** The US Central calendar day of a time: Marketo's quota day (it resets at midnight there). */
const centralDay = (t: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago' }).format(new Date(t));

/**
 * Issue 40 items 7 and 1: the vendor's API calls used against its allocation. Salesforce: the
 * org's calls in the last 24 hours, all its integrations together, as its last reply said.
 * Marketo: the calls Rally sent today (the quota's day ends at midnight US Central) against Adobe's
 * default daily quota, which the subscription's other integrations share; a figure stored on an
 * earlier day counts as none today.
 */
export function ApiUsageLine({
  usage,
  label,
  source,
  now,
}: {
  usage: NonNullable<Integration['api_usage']>;
  label: string;
  source: string;
  /** The time to judge "today" by (tests); the time the line first showed otherwise. */
  now?: number;
}) {
  const [shown] = useState(Date.now);
  const marketo = source === 'marketo';
  const used = marketo && centralDay(Date.parse(usage.at)) !== centralDay(now ?? shown) ? 0 : usage.used;
  const share = usage.max > 0 ? Math.round((used / usage.max) * 100) : 0;
  // A no-break space before each per cent sign: a phone's narrow column does not split "85 %".
  const pct = (n: number) => `${n}\u00a0%`;
  const stop =
    source === 'salesforce'
      ? ` — Rally stops at ${pct(SALESFORCE_STOP_AT)} to leave the rest to the org's other integrations.`
      : marketo
        ? ` — Adobe's default daily quota, shared with the subscription's other integrations.`
        : '';
  const what = marketo
    ? `Marketo API calls Rally made today (since midnight US Central)`
    : `${label} API calls in the last 24 hours`;
  return (
    <Text size="sm" c={share >= SALESFORCE_STOP_AT ? 'orange.8' : 'dimmed'} data-testid="api-usage">
      {`${what}: ${formatCount(used)} of ${formatCount(usage.max)} (${pct(share)})${stop}`}
    </Text>
  );
}
