import { EmailAdsPanel } from '../../features/ad-delivery/index.ts';
import { RunOnNetworks } from '../../features/ad-networks/index.ts';
import { CadenceScreen } from '../../features/cadences/index.ts';
import { SourceLogo } from '../../features/integrations/index.ts';
import { useAuth } from '../../lib/auth/store.ts';

/** The cadence's "Run on networks" panel: running an audience needs cohort.write (decision 0025). */
function CadenceNetworks({ clientId, cadenceId }: { clientId: string; cadenceId: number }) {
  const canWrite = useAuth().currentRole?.permissions.includes('cohort.write') ?? false;
  return (
    <RunOnNetworks
      clientId={clientId}
      source={{ kind: 'cadence', id: String(cadenceId) }}
      canWrite={canWrite}
      members="this cadence’s active prospects"
    />
  );
}

export default function CadenceRoute() {
  return <CadenceScreen SourceLogo={SourceLogo} EmailAds={EmailAdsPanel} Networks={CadenceNetworks} />;
}
