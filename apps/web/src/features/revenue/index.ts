export { RevenueScreen } from './components/revenue-screen.tsx';
