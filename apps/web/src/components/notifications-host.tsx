import { Notifications } from '@mantine/notifications';

/** The toast container, in a chunk of its own (see providers.tsx). */
export default function NotificationsHost({ autoClose }: { autoClose: number }) {
  return <Notifications position="bottom-left" autoClose={autoClose} />;
}
