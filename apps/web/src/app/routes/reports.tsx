import { ReportsScreen } from '../../features/reports/index.ts';

export default function ReportsRoute() {
  return <ReportsScreen />;
}
