export { RevenueReportPart, RevenueScreen } from './components/revenue-screen.tsx';
export type { RevenuePart } from './components/revenue-screen.tsx';
