import { Anchor, Group, Paper, Text, ThemeIcon } from '@mantine/core';
import { IconMail } from '@tabler/icons-react';
import { Link } from 'react-router';
import type { CadenceListItem } from '@rally/shared/schemas/cadences';
import { useCadences } from '../api/get-cadences.ts';
import { cadenceHref } from './cadences-screen.tsx';

/** The cadence whose e-mail step onboarding opens: a running one with ads and prospects, else the largest. */
export function firstEmailCadence(list: CadenceListItem[]): CadenceListItem | undefined {
  const score = (c: CadenceListItem) => (c.status === 'active' && c.is_super ? 1 : 0);
  return [...list].sort((a, b) => score(b) - score(a) || b.counts.total - a.counts.total || a.id - b.id)[0];
}

/**
 * Onboarding's "Add ads to your e-mails" item (issue 38): a link to the step on a cadence's page
 * (#email-ads), or to the cadence list while there is none yet.
 */
export function EmailStepLink({ clientId }: { clientId: string }) {
  const list = useCadences(clientId);
  const cadence = list.data ? firstEmailCadence(list.data) : undefined;
  const to = cadence ? `${cadenceHref(clientId, cadence)}#email-ads` : `/cadence?client_id=${clientId}`;
  return (
    <Paper withBorder radius="md" p="md" w="100%" maw={560}>
      <Group wrap="nowrap" align="flex-start" gap="sm">
        <ThemeIcon variant="light" size={32} radius="xl" aria-hidden>
          <IconMail size={18} />
        </ThemeIcon>
        <div>
          <Text fw={600} size="sm">
            Add ads to your e-mails
          </Text>
          <Text size="sm" c="dimmed">
            Paste one snippet into a cadence&apos;s e-mail templates and every prospect sees their own ad in
            the e-mails they already get.
          </Text>
          <Anchor component={Link} to={to} size="sm">
            {cadence ? `Open the e-mail step of “${cadence.name}”` : 'Choose a cadence'}
          </Anchor>
        </div>
      </Group>
    </Paper>
  );
}
