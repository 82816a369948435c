import { LoginScreen } from '../../features/auth/index.ts';

export default LoginScreen;
