import { CohortScreen } from '../../features/cohorts/index.ts';

export default function CohortRoute() {
  return <CohortScreen />;
}
