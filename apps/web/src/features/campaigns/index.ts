export { CampaignScreen, NewCampaignScreen } from './components/campaign-screen.tsx';
