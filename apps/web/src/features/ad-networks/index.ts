export { AdNetworksScreen } from './components/ad-networks-screen.tsx';
export { RunOnNetworks } from './components/run-on-networks.tsx';
export { RunStagesOnNetworks } from './components/run-stages-on-networks.tsx';
export { NetworkCampaignScreen } from './components/network-campaign-screen.tsx';
