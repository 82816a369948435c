export { LoginScreen } from './components/login-screen.tsx';
export { RegisterScreen } from './components/register-screen.tsx';
export { SignupScreen } from './components/signup-screen.tsx';
export { ResetPasswordScreen } from './components/reset-password-screen.tsx';
export { ChangePasswordScreen } from './components/change-password-screen.tsx';
export { AuthCallbackScreen } from './components/auth-callback-screen.tsx';
