export { ProspectsScreen } from './components/prospects-screen.tsx';
