import { Button, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import { IconPlugConnected } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { ReportSummary } from '@rally/shared/schemas/reports';
import { useAuth } from '../../../lib/auth/store.ts';

/** Where opportunities come from: a connected CRM (a file import of revenue counts too, see below). */
const CRM_SOURCES: readonly string[] = ['salesforce', 'hubspot', 'marketo'];

/** Whether the current client has an active CRM connection. */
export function useHasCrm(): boolean {
  const auth = useAuth();
  return auth.integrations.some((i) => i.is_active && CRM_SOURCES.includes(i.source));
}

/** No CRM, and nothing in the period (no revenue imported from a file either): the cards would read $0. */
export const emptyWithoutCrm = (hasCrm: boolean, s: ReportSummary | undefined) =>
  !hasCrm &&
  s !== undefined &&
  s.opportunities_created === 0 &&
  s.won === 0 &&
  s.progressed === 0 &&
  s.pipeline_generated_cents === 0 &&
  s.revenue_influenced_cents === 0;

/**
 * Revenue without a CRM (issue 42 item 5): instead of four $0 cards, what to connect for revenue to
 * show, and the file import for those without one; whoever cannot connect is told whom to ask.
 */
export function NoCrmNote({ clientId }: { clientId: string }) {
  const auth = useAuth();
  const canConnect = auth.currentRole?.permissions.includes('integration.write') ?? false;
  return (
    <Paper withBorder radius="md" p="lg" component="section" aria-labelledby="no-crm-title">
      <Group wrap="nowrap" align="flex-start" gap="md">
        <ThemeIcon variant="light" size={40} radius="xl" aria-hidden>
          <IconPlugConnected size={22} />
        </ThemeIcon>
        <Stack gap={6} maw={640}>
          <Title order={2} size="h4" id="no-crm-title">
            Connect your CRM to see revenue
          </Title>
          <Text size="sm" c="dimmed">
            Revenue ties the opportunities in your CRM to the ads your prospects saw. No CRM is connected, so
            there is nothing to count yet: connect Salesforce, HubSpot or Marketo, or import your
            opportunities from a CSV file.
          </Text>
          {canConnect ? (
            <Group gap="sm" mt={4}>
              <Button component={Link} to={`/settings/connections?client_id=${clientId}`}>
                Connect a CRM
              </Button>
              <Button
                component={Link}
                variant="default"
                to={`/onboarding?client_id=${clientId}&source=fileforce&step=connect&kind=revenue`}
              >
                Import revenue (CSV)
              </Button>
            </Group>
          ) : (
            <Text size="sm">Ask an owner or admin of this client to connect your CRM.</Text>
          )}
        </Stack>
      </Group>
    </Paper>
  );
}
