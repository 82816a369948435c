export { ClientsScreen } from './components/clients-screen.tsx';
