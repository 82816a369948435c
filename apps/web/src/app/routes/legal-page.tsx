import { Stack, Text, Title } from '@mantine/core';
import type { ReactNode } from 'react';

export type LegalSection = { heading: string; body: ReactNode };

export function LegalPage({
  title,
  updated,
  intro,
  sections,
}: {
  title: string;
  updated: string;
  intro: string;
  sections: LegalSection[];
}) {
  return (
    <Stack gap="lg" maw={760} component="article">
      <div>
        <Title order={1}>{title}</Title>
        <Text c="dimmed" size="sm">
          Last updated {updated}
        </Text>
      </div>
      <Text>{intro}</Text>
      {sections.map((s) => (
        <Stack key={s.heading} gap={6} component="section">
          <Title order={2} fz="lg">
            {s.heading}
          </Title>
          {typeof s.body === 'string' ? <Text>{s.body}</Text> : s.body}
        </Stack>
      ))}
    </Stack>
  );
}
