import { LandingPageEditorScreen } from '../../features/content/index.ts';

export default LandingPageEditorScreen;
