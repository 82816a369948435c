import { Alert, Box, Flex, Paper, Stack, Text } from '@mantine/core';
import { IconAlertTriangle } from '@tabler/icons-react';
import type { ReactNode } from 'react';
import type { Integration } from '@rally/shared/schemas/auth';
import { formatDayTime, relativeTime } from '@rally/shared/utils/dates';
import { ApiUsageLine } from './api-usage-line.tsx';

/**
 * Issue 40 ("Deliver beside the fixes"): a connection's health on its settings page — the vendor's
 * API calls against its budget where Rally knows them, the last error in plain words, when it last
 * synced, and what the connecting user can and cannot see.
 */
export function ConnectionHealth({ integration: i, label }: { integration: Integration; label: string }) {
  return (
    <Paper withBorder radius="sm" p="sm" component="section" aria-label="Connection health">
      <Stack gap="xs">
        <Text fw={600} size="sm">
          Connection health
        </Text>
        <Row title="API calls">
          <Budget integration={i} label={label} />
        </Row>
        <Row title="Last error">
          {i.last_error ? (
            <Alert
              color={i.is_active ? 'yellow' : 'red'}
              variant="light"
              icon={<IconAlertTriangle size={16} />}
              p="xs"
              title={i.is_active ? undefined : 'Why it is inactive'}
            >
              <Text size="sm">{i.last_error}</Text>
            </Alert>
          ) : (
            <Text size="sm">{i.last_synced_at ? 'No errors in the last sync' : 'No errors so far'}</Text>
          )}
        </Row>
        <Row title="Last sync">
          <Text size="sm">
            {i.is_syncing
              ? 'Running now'
              : i.last_synced_at
                ? `${relativeTime(i.last_synced_at)} (${formatDayTime(i.last_synced_at)})`
                : 'None yet'}
          </Text>
        </Row>
        <Row title="What it can see">
          {i.is_demo ? (
            <Text size="sm">Sample data: no {label} user has connected yet.</Text>
          ) : i.access_note ? (
            <Alert
              color="yellow"
              variant="light"
              icon={<IconAlertTriangle size={16} />}
              p="xs"
              title="This connection sees part of the team"
            >
              <Text size="sm">{i.access_note}</Text>
            </Alert>
          ) : (
            <Text size="sm">
              Everything Rally syncs: {label} reported no limit on what the connecting user can read.
            </Text>
          )}
        </Row>
      </Stack>
    </Paper>
  );
}

/** A label beside its value on a wide screen; above it on a phone. */
function Row({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Flex direction={{ base: 'column', sm: 'row' }} gap={{ base: 2, sm: 'md' }}>
      <Text size="sm" c="dimmed" w={{ sm: 140 }} style={{ flexShrink: 0 }}>
        {title}
      </Text>
      <Box style={{ flex: 1, minWidth: 0 }}>{children}</Box>
    </Flex>
  );
}

/**
 * Salesforce stores its org's calls from the Sforce-Limit-Info header on every reply (issue 40 item
 * 7); Marketo's adapter counts the REST calls it sends each US Central day (item 1). Before a sync
 * has stored a figure both say it is not known yet; every other vendor: not tracked.
 */
function Budget({ integration: i, label }: { integration: Integration; label: string }) {
  if (i.is_demo)
    return (
      <Text size="sm">Sample data: Rally makes no {label} calls until you connect your own account.</Text>
    );
  if (i.api_usage) return <ApiUsageLine usage={i.api_usage} label={label} source={i.source} />;
  const text =
    i.source === 'salesforce'
      ? 'Not known yet: Salesforce reports the org’s calls with each reply, and the next sync records them.'
      : i.source === 'marketo'
        ? 'Not known yet: Rally counts the Marketo calls it makes each day, and the next sync records them. It stays under Adobe’s 50 calls per 20 seconds, and once the daily quota is used up (error 607) it makes no more calls until midnight US Central.'
        : `Rally does not track ${label}’s API budget.`;
  return (
    <Text size="sm" c="dimmed" data-testid="api-usage-unknown">
      {text}
    </Text>
  );
}
