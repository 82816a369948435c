import { EmbeddedReportPage } from '../../features/reports/index.ts';

export default function EmbedReportRoute() {
  return <EmbeddedReportPage />;
}
