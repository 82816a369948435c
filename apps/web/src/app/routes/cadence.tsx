import { EmailAdsPanel } from '../../features/ad-delivery/index.ts';
import { CadenceScreen } from '../../features/cadences/index.ts';
import { SourceLogo } from '../../features/integrations/index.ts';

export default function CadenceRoute() {
  return <CadenceScreen SourceLogo={SourceLogo} EmailAds={EmailAdsPanel} />;
}
