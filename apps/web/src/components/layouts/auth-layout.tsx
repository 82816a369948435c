import { Box, Center, Flex, Paper, Stack } from '@mantine/core';
import { Outlet } from 'react-router';
import { Brand } from '../brand.tsx';
import { PageFooter } from './page-footer.tsx';
import { RouteTitle } from './route-title.tsx';
import { ScreenSuspense } from './screen-suspense.tsx';

/** The sign-in family of screens: a centred card on a tinted background. */
export function AuthLayout() {
  return (
    <Flex direction="column" mih="100vh" bg="indigo.0">
      <RouteTitle />
      <Center component="main" flex={1} py={48} px="md">
        <Stack w="100%" maw={420} gap="lg" align="center">
          <Brand />
          <Paper withBorder shadow="sm" radius="md" p="xl" w="100%">
            <ScreenSuspense>
              <Outlet />
            </ScreenSuspense>
          </Paper>
        </Stack>
      </Center>
      <Box bg="white">
        <PageFooter />
      </Box>
    </Flex>
  );
}
