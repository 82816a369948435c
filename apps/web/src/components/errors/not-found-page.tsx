import { Anchor, Stack, Text, Title } from '@mantine/core';
import { Link } from 'react-router';
import { usePageTitle } from '../../lib/use-page-title.ts';

/** SPEC.md §8: "Page 'Page not found', status 404" (the server sends the 404 status). */
export function NotFoundPage() {
  usePageTitle('Page not found');
  return (
    <Stack align="center" gap="sm" py={80} ta="center">
      <Text fz={64} fw={800} c="indigo.5" lh={1} aria-hidden>
        404
      </Text>
      <Title order={1}>Page not found</Title>
      <Text c="dimmed" maw={460}>
        We are sorry, the page you requested could not be found. Please go back to the{' '}
        {/* Underlined: inside a sentence, colour alone does not tell a link (WCAG 1.4.1). */}
        <Anchor component={Link} to="/" underline="always">
          homepage
        </Anchor>
      </Text>
    </Stack>
  );
}
