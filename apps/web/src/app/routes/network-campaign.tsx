import { NetworkCampaignScreen } from '../../features/ad-networks/index.ts';

export default NetworkCampaignScreen;
