import { DEFAULT_THEME, MantineProvider, createTheme } from '@mantine/core';
import type {
  AlertProps,
  ModalProps,
  CSSVariablesResolver,
  MantineColorsTuple,
  MenuProps,
  NotificationProps,
  TableScrollContainerProps,
  TooltipProps,
} from '@mantine/core';
import { QueryClientContext } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { afterFirstScreen } from '../lib/after-first-screen.ts';
import { loadQueryModule, loadedQueryModule, subscribeQueryModule } from '../lib/query-loader.ts';
import { RoutePrefetchProvider } from './prefetch.tsx';
import { MENU_HIDE_DELAY_MS, TOOLTIP_DISTANCE_PX, TOOLTIP_SHOW_DELAY_MS } from '../config/widgets.ts';
import { useNotifications } from '@mantine/notifications';
import { Suspense, lazy, useEffect, useState, useSyncExternalStore } from 'react';
import type { ReactNode } from 'react';

// The toast container (with its transitions and scroll lock) loads after the first screen, or with
// the first toast if that comes sooner, so the sign-in screen does not wait for it (issue 19: /login
// JS budget). Toasts raised before it is there wait in Mantine's store and show when it mounts.
const NotificationsHost = lazy(() => import('../components/notifications-host.tsx'));

function DeferredNotifications() {
  const { notifications, queue } = useNotifications();
  // Unit tests render screens without the app's start-up: the container is there from the start, as
  // before, so no late state update lands outside the tests' act().
  const [ready, setReady] = useState(import.meta.env.MODE === 'test');
  useEffect(() => {
    if (!ready) afterFirstScreen(() => setReady(true));
  }, [ready]);
  if (!ready && notifications.length === 0 && queue.length === 0) return null;
  return (
    <Suspense fallback={null}>
      <NotificationsHost autoClose={TOAST_AUTO_CLOSE_MS} />
    </Suspense>
  );
}

/**
 * Colour contrast (WCAG 2.1 AA, 4.5:1 for text) is settled here, once, so every screen inherits it
 * (issue 21), keeping Mantine's look:
 * - gray 6 (#868e96: "dimmed" text, subtle and outline gray controls) reads 3.3:1 on white, so it
 *   becomes #5f666d (5.9:1; 5.5:1 on gray 0);
 * - shade 9, the text of light variants and of `c="<colour>"`, is below 4.5:1 on white for green,
 *   lime, yellow and orange, so those four get a darker 9;
 * - the filled primary is shade 7 (white on indigo 7 is 5.0:1), and `autoContrast` puts dark text on
 *   the filled shades too light for white: those with a luminance above 0.18, where white falls
 *   below 4.5:1 (1.05 / 0.23) and black is above it (Mantine's 0.3 left white on teal 7 at 3.1:1).
 */
type PaletteName = 'gray' | 'green' | 'lime' | 'yellow' | 'orange';
const withShade = (name: PaletteName, shade: number, value: string) =>
  DEFAULT_THEME.colors[name].map((c, i) => (i === shade ? value : c)) as unknown as MantineColorsTuple;

export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: { light: 7, dark: 8 },
  autoContrast: true,
  luminanceThreshold: 0.18,
  colors: {
    gray: withShade('gray', 6, '#5f666d'),
    green: withShade('green', 9, '#237032'),
    lime: withShade('lime', 9, '#4a7509'),
    yellow: withShade('yellow', 9, '#a35400'),
    orange: withShade('orange', 9, '#b83c0b'),
  },
  fontFamily: 'Inter, system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  defaultRadius: 'md',
  components: {
    // A table that scrolls sideways (phones) must be reachable from the keyboard to be scrolled. It
    // is also the box its cells' visually hidden labels (absolutely positioned) are placed in: without
    // it they were placed against the page and made it scroll sideways at 375 px (WCAG 1.4.10).
    // Plain objects, not Component.extend(): importing the components here put the scroll area, the
    // menus and tooltips and their positioning library in the first download of every page (issue 19).
    TableScrollContainer: {
      defaultProps: { tabIndex: 0 } satisfies Partial<TableScrollContainerProps>,
      styles: { scrollContainer: { position: 'relative' } },
    },
    // A badge beside text that wraps (a member's name and "You", at 375 px) kept shrinking to "Y…":
    // its few words stay whole, and the text beside it wraps instead.
    Badge: { styles: { root: { flexShrink: 0 } } },
    // A toast's close button is an icon: it needs a name for screen readers (axe: button-name).
    Notification: {
      defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } satisfies Partial<NotificationProps>,
    },
    // The same for every dialog and dismissible alert that does not name its own (the phone walk of a
    // new landing page found an unnamed close button: axe button-name). Not for drawers: a theme
    // default there stopped the prospect drawer from giving focus back on Escape (keyboard walk); each
    // drawer names its close button itself.
    Modal: { defaultProps: { closeButtonProps: { 'aria-label': 'Close' } } satisfies Partial<ModalProps> },
    Alert: { defaultProps: { closeButtonLabel: 'Close' } satisfies Partial<AlertProps> },
    // SPEC.md §9, for every menu and tooltip rather than per use.
    Menu: { defaultProps: { closeDelay: MENU_HIDE_DELAY_MS } satisfies Partial<MenuProps> },
    Tooltip: {
      defaultProps: {
        openDelay: TOOLTIP_SHOW_DELAY_MS,
        offset: TOOLTIP_DISTANCE_PX,
      } satisfies Partial<TooltipProps>,
    },
  },
});

/**
 * Light variants (badges, alerts, light buttons, avatars) put shade 9 text on shade 1 (4.3:1 for
 * teal); on shade 0 every palette colour's 9 reaches 4.6:1. Coloured text (`c="teal"`) is shade 9
 * rather than the filled shade, which is too light to read on white for half the palette.
 */
export const cssVariablesResolver: CSSVariablesResolver = (t) => ({
  variables: {},
  light: Object.fromEntries(
    Object.keys(t.colors).flatMap((name) => [
      [`--mantine-color-${name}-light`, `var(--mantine-color-${name}-0)`],
      [`--mantine-color-${name}-light-hover`, `var(--mantine-color-${name}-1)`],
      // The primary keeps its filled shade (7) as text: links read 5.0:1 and keep their colour.
      ...(name === t.primaryColor
        ? []
        : [[`--mantine-color-${name}-text`, `var(--mantine-color-${name}-9)`]]),
    ]),
  ),
  dark: {},
});

/** SPEC.md §9: toasts close after 7000 ms, placed at the bottom left. */
export const TOAST_AUTO_CLOSE_MS = 7000;

/**
 * The query client of react-query's context, there once its code has loaded (query-loader.ts): the
 * routes that read queries wait for it, /login does not. The context element stays the same when the
 * client arrives, so nothing below remounts.
 */
function DeferredQueryClient({ children }: { children: ReactNode }) {
  const queryModule = useSyncExternalStore(subscribeQueryModule, loadedQueryModule, loadedQueryModule);
  const [client, setClient] = useState<QueryClient | null>(() => queryModule?.createQueryClient() ?? null);
  if (queryModule && !client) setClient(queryModule.createQueryClient());
  useEffect(() => {
    if (!client) {
      afterFirstScreen(() => void loadQueryModule());
      return;
    }
    // What QueryClientProvider does: focus and online events refetch and resume paused mutations.
    client.mount();
    return () => client.unmount();
  }, [client]);
  return <QueryClientContext value={client ?? undefined}>{children}</QueryClientContext>;
}

export function AppProviders({ children }: { children: ReactNode }) {
  return (
    <MantineProvider theme={theme} cssVariablesResolver={cssVariablesResolver}>
      <DeferredNotifications />
      <DeferredQueryClient>
        <RoutePrefetchProvider>{children}</RoutePrefetchProvider>
      </DeferredQueryClient>
    </MantineProvider>
  );
}
