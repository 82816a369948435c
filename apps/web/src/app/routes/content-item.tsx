import { AdEditorScreen } from '../../features/content/index.ts';

export default AdEditorScreen;
