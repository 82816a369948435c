import { Anchor, Container, Group, Text } from '@mantine/core';
import { PRODUCT_NAME } from '@rally/shared';
import { Link } from 'react-router';
import { paths } from '../../config/paths.ts';

/** SPEC.md §2: the footer shows the current year, a copyright line and links to cookies, privacy and terms. */
export function PageFooter() {
  const year = new Date().getFullYear();
  return (
    <Container component="footer" size={1200} py="lg" w="100%">
      <Group justify="space-between" gap="xs">
        <Text size="sm" c="dimmed">
          © {year} {PRODUCT_NAME} Technologies, Inc. All rights reserved.
        </Text>
        <Group gap="md" component="nav" aria-label="Legal">
          <Anchor component={Link} to={paths.cookies} size="sm" c="dimmed">
            Cookies
          </Anchor>
          <Anchor component={Link} to={paths.privacy} size="sm" c="dimmed">
            Privacy
          </Anchor>
          <Anchor component={Link} to={paths.terms} size="sm" c="dimmed">
            Terms of use
          </Anchor>
        </Group>
      </Group>
    </Container>
  );
}
