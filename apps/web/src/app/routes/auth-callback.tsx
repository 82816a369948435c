import { AuthCallbackScreen } from '../../features/auth/index.ts';

export default AuthCallbackScreen;
