import { Box, Container, Flex } from '@mantine/core';
import { Outlet } from 'react-router';
import { PageFooter } from './page-footer.tsx';
import { PageHeader } from './page-header.tsx';
import { RouteTitle } from './route-title.tsx';
import { ScreenSuspense } from './screen-suspense.tsx';

/** Header, a content column 980 to 1200 px wide (SPEC.md §9), and the footer. */
export function DefaultLayout() {
  return (
    <Flex direction="column" mih="100vh" bg="gray.0">
      <RouteTitle />
      <PageHeader />
      <Box component="main" flex={1} py="xl">
        <Container size={1200} miw={{ md: 980 }}>
          <ScreenSuspense>
            <Outlet />
          </ScreenSuspense>
        </Container>
      </Box>
      <PageFooter />
    </Flex>
  );
}
