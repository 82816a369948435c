import {
  Anchor,
  Badge,
  Group,
  Paper,
  Progress,
  Stack,
  Text,
  ThemeIcon,
  Title,
  VisuallyHidden,
} from '@mantine/core';
import { IconCircleCheck, IconCircleDashed } from '@tabler/icons-react';
import { Link } from 'react-router';
import { useSetupChecklist } from '../api/get-setup-checklist.ts';

const withClient = (path: string, clientId: string) =>
  `${path}${path.includes('?') ? '&' : '?'}client_id=${clientId}`;

/**
 * The setup checklist (issue 42 item 5): "3 of 6 done", and each step not done naming what it blocks
 * (no ad, ads off, no card, no CRM, no sequence platform, no photo) with a link to the screen that
 * does it, or whom to ask when the role cannot. Nothing once every step is done.
 */
export function SetupChecklist({ clientId }: { clientId: string }) {
  const q = useSetupChecklist(clientId);
  // A helper beside the screen's own content: nothing while it loads or if it cannot be read.
  if (q.isPending || q.isError) return null;
  const { steps, done, total } = q.data;
  if (done === total) return null;
  return (
    <Paper component="section" withBorder radius="md" p="md" aria-labelledby="setup-title">
      <Group justify="space-between" mb={6} wrap="wrap" gap="xs">
        <Title order={2} size="h4" id="setup-title">
          Finish setting up
        </Title>
        <Badge variant="light" color={done === 0 ? 'gray' : 'blue'}>
          {done} of {total} done
        </Badge>
      </Group>
      <Progress
        value={(100 * done) / total}
        size="sm"
        mb="sm"
        aria-label={`Setup: ${done} of ${total} steps done`}
      />
      <Stack gap="xs" component="ol" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {steps.map((step) => (
          <Group component="li" key={step.key} wrap="nowrap" align="flex-start" gap="sm">
            <ThemeIcon variant="light" color={step.done ? 'teal' : 'gray'} radius="xl" aria-hidden>
              {step.done ? <IconCircleCheck size={18} /> : <IconCircleDashed size={18} />}
            </ThemeIcon>
            <div style={{ minWidth: 0 }}>
              <Text
                size="sm"
                fw={600}
                td={step.done ? 'line-through' : undefined}
                c={step.done ? 'dimmed' : undefined}
              >
                {step.title}
                {step.done && <VisuallyHidden>: done</VisuallyHidden>}
              </Text>
              {!step.done && (
                <>
                  <Text size="sm" c="dimmed">
                    {step.detail}
                  </Text>
                  {step.ask_owner ? (
                    <Text size="xs" c="dimmed">
                      Your role cannot do this: ask an owner or admin.
                    </Text>
                  ) : (
                    <Anchor component={Link} to={withClient(step.link.path, clientId)} size="sm">
                      {step.link.label}
                    </Anchor>
                  )}
                </>
              )}
            </div>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
