import { LandingPagesScreen } from '../../features/content/index.ts';

export default LandingPagesScreen;
