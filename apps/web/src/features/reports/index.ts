export { ReportsScreen } from './components/reports-screen.tsx';
