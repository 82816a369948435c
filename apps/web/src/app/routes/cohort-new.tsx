import { CreateCohortScreen } from '../../features/cohorts/index.ts';

export default function CreateCohortRoute() {
  return <CreateCohortScreen />;
}
