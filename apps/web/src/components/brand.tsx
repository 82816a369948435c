import { Group, Text, ThemeIcon } from '@mantine/core';
import { PRODUCT_NAME } from '@rally/shared';
import { Link } from 'react-router';

/** The product mark and name, linking home. */
export function Brand() {
  return (
    <Link to="/" style={{ textDecoration: 'none', color: 'inherit' }} aria-label={`${PRODUCT_NAME} home`}>
      <Group gap={8} wrap="nowrap">
        <ThemeIcon size={30} radius="md" variant="filled" color="indigo" aria-hidden>
          <Text fw={800} fz={16} c="white" lh={1}>
            R
          </Text>
        </ThemeIcon>
        <Text fw={800} fz={20} lts={-0.3}>
          {PRODUCT_NAME}
        </Text>
      </Group>
    </Link>
  );
}
