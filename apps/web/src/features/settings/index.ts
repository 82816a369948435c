export { ProfileScreen } from './components/profile-screen.tsx';
export { UsersScreen } from './components/users-screen.tsx';
