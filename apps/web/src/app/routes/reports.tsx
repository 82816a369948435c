import { ReportsScreen } from '../../features/reports/index.ts';
import type { RevenuePartSlot } from '../../features/reports/index.ts';
import { RevenueReportPart } from '../../features/revenue/index.ts';

/** /reports: the reports feature's tabs, with the revenue feature's parts in Pipeline, Revenue and Opportunities. */
const revenuePart: RevenuePartSlot = (props) => <RevenueReportPart {...props} />;

export default function ReportsRoute() {
  return <ReportsScreen revenuePart={revenuePart} />;
}
