export { ReportsScreen } from './components/reports-screen.tsx';
export type { RevenuePartSlot } from './components/reports-screen.tsx';
export { EmbeddedReportPage } from './components/embedded-report-view.tsx';
