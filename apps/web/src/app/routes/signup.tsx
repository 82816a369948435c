import { SignupScreen } from '../../features/auth/index.ts';

export default SignupScreen;
