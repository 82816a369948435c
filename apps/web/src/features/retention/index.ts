export { RetentionPanel } from './components/retention-panel.tsx';
