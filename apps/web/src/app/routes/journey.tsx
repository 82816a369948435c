import { JourneyBuilderScreen } from '../../features/journeys/index.ts';

export default function JourneyRoute() {
  return <JourneyBuilderScreen />;
}
