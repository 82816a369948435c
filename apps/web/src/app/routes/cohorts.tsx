import { CohortsScreen } from '../../features/cohorts/index.ts';

export default function CohortsRoute() {
  return <CohortsScreen />;
}
