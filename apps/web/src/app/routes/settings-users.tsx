import { UsersScreen } from '../../features/settings/index.ts';

export default UsersScreen;
