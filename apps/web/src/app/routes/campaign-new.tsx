import { NewCampaignScreen } from '../../features/campaigns/index.ts';

export default function NewCampaignRoute() {
  return <NewCampaignScreen />;
}
