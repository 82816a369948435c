import { EmailStepLink } from '../../features/cadences/index.ts';
import { OnboardingScreen } from '../../features/integrations/index.ts';

export default function OnboardingRoute() {
  return <OnboardingScreen nextSteps={(clientId) => <EmailStepLink clientId={clientId} />} />;
}
