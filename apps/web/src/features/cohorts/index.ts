export { CohortScreen } from './components/cohort-screen.tsx';
export { CohortsScreen } from './components/cohorts-screen.tsx';
export { CreateCohortScreen } from './components/create-cohort-screen.tsx';
