import { TargetsExportButton } from '../../features/ad-delivery/index.ts';
import { CohortScreen } from '../../features/cohorts/index.ts';

export default function CohortRoute() {
  return <CohortScreen TargetsExport={TargetsExportButton} />;
}
