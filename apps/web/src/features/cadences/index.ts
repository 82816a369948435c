export { CadenceScreen } from './components/cadence-screen.tsx';
export { CadencesScreen } from './components/cadences-screen.tsx';
export type { SourceLogoComponent } from './components/cadences-screen.tsx';
export { EmailStepLink } from './components/email-step-link.tsx';
export type { EmailAdsComponent } from './components/cadence-screen.tsx';
export { OpenNewCadenceButton, newestCadenceOf } from './components/open-new-cadence.tsx';
