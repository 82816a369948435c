import { FacebookSettingsScreen } from '../../features/content/index.ts';

export default FacebookSettingsScreen;
