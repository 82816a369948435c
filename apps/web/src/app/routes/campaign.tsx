import { CampaignScreen } from '../../features/campaigns/index.ts';

export default function CampaignRoute() {
  return <CampaignScreen />;
}
