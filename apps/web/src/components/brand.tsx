import { Group, Text, ThemeIcon, VisuallyHidden } from '@mantine/core';
import { PRODUCT_NAME } from '@rally/shared';
import { Link } from 'react-router';

/**
 * The product mark and name, linking home. The link is named by its content ("Rally home"), not an
 * aria-label, so the name contains the visible text (WCAG 2.5.3).
 */
export function Brand() {
  return (
    <Link to="/" style={{ textDecoration: 'none', color: 'inherit' }}>
      <Group gap={8} wrap="nowrap">
        <ThemeIcon size={30} radius="md" variant="filled" color="indigo" aria-hidden>
          <Text fw={800} fz={16} c="white" lh={1}>
            R
          </Text>
        </ThemeIcon>
        <Text fw={800} fz={20} lts={-0.3}>
          {PRODUCT_NAME}
        </Text>
        <VisuallyHidden>home</VisuallyHidden>
      </Group>
    </Link>
  );
}
