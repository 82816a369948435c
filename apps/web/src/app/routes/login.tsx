// The screen's own module, not the feature's index: through the index this route's chunk reached every
// auth screen and their form-validation library (issue 19: /login is the first download).
import { LoginScreen } from '../../features/auth/components/login-screen.tsx';

export default LoginScreen;
