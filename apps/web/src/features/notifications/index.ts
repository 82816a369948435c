export { NotificationSettingsScreen } from './components/notification-settings-screen.tsx';
