import { useEffect, useState } from 'react';
import { Alert, Anchor, Center, Loader, Stack, Text } from '@mantine/core';

// A second load within this time means the server handed back the app instead of its page.
const LOOP_WINDOW_MS = 5000;

/**
 * Landing pages and previews are rendered by the server (no app code on them). A navigation inside
 * the app reaches this screen instead, so it loads the same address from the server; should the
 * server answer with the app again (a session that ended), it says so rather than reloading forever.
 */
export default function ServerPage() {
  const key = `server-page:${window.location.pathname}${window.location.search}`;
  const [stuck] = useState(() => {
    const last = Number(window.sessionStorage.getItem(key) ?? 0);
    if (Date.now() - last >= LOOP_WINDOW_MS) return false;
    window.sessionStorage.removeItem(key);
    return true;
  });
  useEffect(() => {
    if (stuck) return;
    window.sessionStorage.setItem(key, String(Date.now()));
    window.location.replace(window.location.href);
  }, [key, stuck]);

  if (stuck) {
    return (
      <Center py={64}>
        <Alert color="yellow" variant="light" title="This page could not be opened" maw={480}>
          <Stack gap="xs">
            <Text size="sm">Your session may have ended. Sign in again, then open the page once more.</Text>
            <Anchor href="/login" size="sm">
              Sign in
            </Anchor>
          </Stack>
        </Alert>
      </Center>
    );
  }
  return (
    <Center py={64} role="status" aria-label="Opening the page">
      <Loader size="sm" />
    </Center>
  );
}
