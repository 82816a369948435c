import { JourneyViewScreen } from '../../features/journeys/index.ts';

export default function JourneyViewRoute() {
  return <JourneyViewScreen />;
}
