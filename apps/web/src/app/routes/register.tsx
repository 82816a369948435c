import { RegisterScreen } from '../../features/auth/index.ts';

export default RegisterScreen;
