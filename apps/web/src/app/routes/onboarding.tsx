import { EmailStepLink, OpenNewCadenceButton } from '../../features/cadences/index.ts';
import { SetupChecklist } from '../../features/feed/index.ts';
import { OnboardingScreen } from '../../features/integrations/index.ts';

export default function OnboardingRoute() {
  return (
    <OnboardingScreen
      nextSteps={(clientId) => <EmailStepLink clientId={clientId} />}
      checklist={(clientId) => <SetupChecklist clientId={clientId} />}
      openAction={(clientId, source, open) => (
        <OpenNewCadenceButton clientId={clientId} source={source} onOpen={open} />
      )}
    />
  );
}
