export { FeedScreen } from './components/feed-screen.tsx';
export { SetupChecklist } from './components/setup-checklist.tsx';
