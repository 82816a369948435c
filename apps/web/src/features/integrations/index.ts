export { ConnectionsScreen } from './components/connections-screen.tsx';
export { IntegrationSettingsScreen } from './components/integration-settings-screen.tsx';
export { OnboardingScreen } from './components/onboarding-screen.tsx';
