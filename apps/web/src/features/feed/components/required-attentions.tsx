import { Badge, Button, Group, Paper, Stack, Text, ThemeIcon, Title } from '@mantine/core';
import {
  IconCalendarOff,
  IconCreditCard,
  IconPhotoOff,
  IconPlugConnectedX,
  IconRoute,
} from '@tabler/icons-react';
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import type { RequiredAttentionKind } from '@rally/shared/schemas/attention';
import { PanelError } from '../../../components/panel-states.tsx';
import { useRequiredAttentions } from '../api/get-required-attentions.ts';

const ICONS: Record<RequiredAttentionKind, ReactNode> = {
  integration_inactive: <IconPlugConnectedX size={18} />,
  card_failing: <IconCreditCard size={18} />,
  cadence_day_without_content: <IconCalendarOff size={18} />,
  rep_without_photo: <IconPhotoOff size={18} />,
  journey_without_content: <IconRoute size={18} />,
};
const COLORS: Record<RequiredAttentionKind, string> = {
  integration_inactive: 'red',
  card_failing: 'red',
  cadence_day_without_content: 'orange',
  rep_without_photo: 'yellow',
  journey_without_content: 'orange',
};

/** The item's screen with the current client (SPEC.md §2: links carry client_id). */
const withClient = (path: string, clientId: string) =>
  `${path}${path.includes('?') ? '&' : '?'}client_id=${clientId}`;

/**
 * Above the feed: what needs a person now (GET …/required_attentions), each with a link to the screen
 * that fixes it. Nothing shows while it loads or when nothing needs attention.
 */
export function RequiredAttentions({ clientId, enabled }: { clientId: string; enabled: boolean }) {
  const q = useRequiredAttentions(clientId, enabled);
  if (!enabled || q.isPending) return null;
  if (q.isError)
    return <PanelError error={q.error} what="what needs your attention" onRetry={() => void q.refetch()} />;
  if (q.data.items.length === 0) return null;
  return (
    <Paper component="section" withBorder radius="md" p="md" aria-labelledby="attention-title">
      <Group gap="xs" mb="sm">
        <Title order={2} size="h4" id="attention-title">
          Needs your attention
        </Title>
        <Badge color="red" variant="light" aria-label={`${q.data.total} items`}>
          {q.data.total}
        </Badge>
      </Group>
      <Stack gap="xs" component="ul" style={{ listStyle: 'none', margin: 0, padding: 0 }}>
        {q.data.items.map((item) => (
          <Group component="li" key={item.id} justify="space-between" wrap="nowrap" gap="sm">
            <Group gap="sm" wrap="nowrap" align="flex-start">
              <ThemeIcon variant="light" color={COLORS[item.kind]} aria-hidden>
                {ICONS[item.kind]}
              </ThemeIcon>
              <Text size="sm">{item.message}</Text>
            </Group>
            <Button
              component={Link}
              to={withClient(item.link.path, clientId)}
              size="xs"
              variant="light"
              style={{ flexShrink: 0 }}
            >
              {item.link.label}
            </Button>
          </Group>
        ))}
      </Stack>
    </Paper>
  );
}
