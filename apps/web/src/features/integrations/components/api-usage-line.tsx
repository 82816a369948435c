import { Text } from '@mantine/core';
import type { Integration } from '@rally/shared/schemas/auth';
import { formatCount } from '@rally/shared/utils/numbers';

/** The share of Salesforce's daily allocation Rally leaves to the org's other integrations (server: api-budget.ts). */
const SALESFORCE_STOP_AT = 85;

/**
 * Issue 40 item 7: the vendor's API calls used against its allocation, as its last reply said
 * (Salesforce: the org's calls in the last 24 hours, all its integrations together).
 */
export function ApiUsageLine({
  usage,
  label,
  source,
}: {
  usage: NonNullable<Integration['api_usage']>;
  label: string;
  source: string;
}) {
  const share = usage.max > 0 ? Math.round((usage.used / usage.max) * 100) : 0;
  // A no-break space before each per cent sign: a phone's narrow column does not split "85 %".
  const pct = (n: number) => `${n}\u00a0%`;
  const stop =
    source === 'salesforce'
      ? ` — Rally stops at ${pct(SALESFORCE_STOP_AT)} to leave the rest to the org's other integrations.`
      : '';
  return (
    <Text size="sm" c={share >= SALESFORCE_STOP_AT ? 'orange.8' : 'dimmed'} data-testid="api-usage">
      {`${label} API calls in the last 24 hours: ${formatCount(usage.used)} of ${formatCount(usage.max)} (${pct(share)})${stop}`}
    </Text>
  );
}
