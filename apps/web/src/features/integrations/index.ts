export { ConnectionsScreen } from './components/connections-screen.tsx';
export { IntegrationSettingsScreen } from './components/integration-settings-screen.tsx';
export { OnboardingScreen } from './components/onboarding-screen.tsx';
export { SourceLogo } from './components/source-logo.tsx';
export { SalesRepsScreen } from './components/sales-reps-screen.tsx';
