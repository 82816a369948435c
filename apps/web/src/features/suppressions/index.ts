export { getSuppressionsQueryOptions, useSuppressions } from './api/suppressions.ts';
export { SuppressionListScreen } from './components/suppression-list-screen.tsx';
