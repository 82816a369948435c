import { ProfileScreen } from '../../features/settings/index.ts';

export default ProfileScreen;
