import { ResetPasswordScreen } from '../../features/auth/index.ts';

export default ResetPasswordScreen;
