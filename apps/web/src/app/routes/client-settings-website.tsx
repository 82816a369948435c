import { WebsiteSettingsScreen } from '../../features/content/index.ts';

export default WebsiteSettingsScreen;
