import { ChangePasswordScreen } from '../../features/auth/index.ts';

export default ChangePasswordScreen;
