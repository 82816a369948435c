import { AdNetworksScreen } from '../../features/ad-networks/index.ts';

export default AdNetworksScreen;
