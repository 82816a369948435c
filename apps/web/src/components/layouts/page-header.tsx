import { Box, Button, Container, Group } from '@mantine/core';
import { Link } from 'react-router';
import { paths } from '../../config/paths.ts';
import { Brand } from '../brand.tsx';

/** The logged-out header: Sign Up (/register) and Sign In (/login), as SPEC.md §2 says. */
export function PageHeader() {
  return (
    <Box component="header" bg="white" style={{ borderBottom: '1px solid var(--mantine-color-gray-3)' }}>
      <Container size={1200} h={60}>
        <Group h="100%" justify="space-between">
          <Brand />
          <Group gap="xs">
            <Button component={Link} to={paths.register} variant="subtle">
              Sign Up
            </Button>
            <Button component={Link} to={paths.login}>
              Sign In
            </Button>
          </Group>
        </Group>
      </Container>
    </Box>
  );
}
