import { TargetsExportButton } from '../../features/ad-delivery/index.ts';
import { RunOnNetworks } from '../../features/ad-networks/index.ts';
import { CohortScreen } from '../../features/cohorts/index.ts';

/** The cohort's "Run on networks" panel: the two features meet here. */
function CohortNetworks({ clientId, id, canWrite }: { clientId: string; id: string; canWrite: boolean }) {
  return <RunOnNetworks clientId={clientId} source={{ kind: 'cohort', id }} canWrite={canWrite} />;
}

export default function CohortRoute() {
  return <CohortScreen TargetsExport={TargetsExportButton} Networks={CohortNetworks} />;
}
