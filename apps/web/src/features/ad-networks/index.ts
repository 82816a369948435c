export { AdNetworksScreen } from './components/ad-networks-screen.tsx';
export { RunOnNetworks } from './components/run-on-networks.tsx';
