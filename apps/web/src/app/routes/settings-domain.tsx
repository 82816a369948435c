import { DomainSettingsScreen } from '../../features/content/index.ts';

export default DomainSettingsScreen;
