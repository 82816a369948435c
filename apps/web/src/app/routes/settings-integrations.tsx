import { IntegrationSettingsScreen } from '../../features/integrations/index.ts';

export default IntegrationSettingsScreen;
