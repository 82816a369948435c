import { RunStagesOnNetworks } from '../../features/ad-networks/index.ts';
import { JourneyViewScreen } from '../../features/journeys/index.ts';

export default function JourneyViewRoute() {
  return <JourneyViewScreen StageNetworks={RunStagesOnNetworks} />;
}
