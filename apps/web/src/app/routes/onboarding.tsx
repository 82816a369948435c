import { OnboardingScreen } from '../../features/integrations/index.ts';

export default OnboardingScreen;
