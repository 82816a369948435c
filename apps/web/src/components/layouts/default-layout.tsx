import { Box, Container, Flex } from '@mantine/core';
import type { ReactNode } from 'react';
import { Outlet } from 'react-router';
import { PageFooter } from './page-footer.tsx';
import { PageHeader } from './page-header.tsx';
import { RouteTitle } from './route-title.tsx';
import { ScreenSuspense } from './screen-suspense.tsx';
import { SkipLink } from './skip-link.tsx';

/**
 * Header, a content column 980 to 1200 px wide (SPEC.md §9), and the footer. `headerSearch` is
 * given by the app (app/app-shell.tsx), since generic layouts do not import features.
 */
export function DefaultLayout({ headerSearch }: { headerSearch?: ReactNode }) {
  return (
    <Flex direction="column" mih="100vh" bg="gray.0">
      <RouteTitle />
      <SkipLink />
      <PageHeader search={headerSearch} />
      <Box component="main" id="content" tabIndex={-1} flex={1} py="xl" style={{ outline: 'none' }}>
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
