import { Anchor, Button, Group, Paper, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { clientSettingsSchema } from '@rally/shared/schemas/content';
import { apiRequest } from '../../../lib/api-client.ts';
import { useAuth } from '../../../lib/auth/store.ts';
import { getRevenueSettingsQueryOptions } from '../api/get-reports.ts';
import { useHasCrm } from './no-crm.tsx';

/** SPEC.md §3: revenue_report_enabled is off by default; whoever may change settings can turn it on here. */
export function RevenueOff({ clientId, withHeader = true }: { clientId: string; withHeader?: boolean }) {
  const auth = useAuth();
  const hasCrm = useHasCrm();
  const queryClient = useQueryClient();
  const canChange = auth.currentRole?.permissions.includes('settings.write') ?? false;
  const turnOn = useMutation({
    mutationFn: () =>
      apiRequest(`/v1/rest/client/${clientId}/settings`, {
        method: 'PUT',
        body: { revenue_report_enabled: true },
        schema: clientSettingsSchema,
        clientId,
      }),
    onSuccess: (data) => queryClient.setQueryData(getRevenueSettingsQueryOptions(clientId).queryKey, data),
  });
  return (
    <Stack gap="lg">
      {withHeader && <Header />}
      <Paper withBorder radius="md" p="xl">
        <Stack align="flex-start" gap="sm" maw={620}>
          <Title order={2} size="h3">
            The revenue report is off for this client
          </Title>
          <Text c="dimmed">
            Once on, this screen ties the opportunities in your CRM to the ads your prospects saw: the
            pipeline they generated, the deals they moved forward and the revenue they influenced.
          </Text>
          {!hasCrm && (
            <Text size="sm">
              It needs your opportunities: no CRM is connected yet.{' '}
              <Anchor component={Link} to={`/settings/connections?client_id=${clientId}`}>
                Connect a CRM
              </Anchor>{' '}
              or{' '}
              <Anchor
                component={Link}
                to={`/onboarding?client_id=${clientId}&source=fileforce&step=connect&kind=revenue`}
              >
                import revenue from a CSV file
              </Anchor>
              .
            </Text>
          )}
          {canChange ? (
            <Button onClick={() => turnOn.mutate()} loading={turnOn.isPending}>
              Turn on the revenue report
            </Button>
          ) : (
            <Text size="sm">Ask an owner or admin of this client to turn it on.</Text>
          )}
        </Stack>
      </Paper>
    </Stack>
  );
}

/** The screen's title and what it shows, with the period picker beside it. */
export function Header({ children }: { children?: React.ReactNode }) {
  return (
    <Group justify="space-between" align="flex-end" wrap="wrap" gap="sm">
      <div>
        <Title order={1}>Revenue</Title>
        <Text c="dimmed" mt={4}>
          Pipeline and revenue that followed your prospects&apos; engagement with Rally&apos;s ads.
        </Text>
      </div>
      {children}
    </Group>
  );
}
