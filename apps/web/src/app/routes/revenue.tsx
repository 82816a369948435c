import { RevenueScreen } from '../../features/revenue/index.ts';

export default function RevenueRoute() {
  return <RevenueScreen />;
}
