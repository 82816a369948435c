import { ConnectionsScreen } from '../../features/integrations/index.ts';

export default ConnectionsScreen;
