import { ClientsScreen } from '../../features/clients/index.ts';

export default ClientsScreen;
