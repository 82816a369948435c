import { FeedScreen } from '../../features/feed/index.ts';

export default function FeedRoute() {
  return <FeedScreen />;
}
