export { JourneyBuilderScreen } from './components/journey-builder-screen.tsx';
export { JourneyViewScreen } from './components/journey-view-screen.tsx';
