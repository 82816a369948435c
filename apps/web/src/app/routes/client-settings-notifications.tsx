import { NotificationSettingsScreen } from '../../features/notifications/index.ts';

export default NotificationSettingsScreen;
