import { ContentListScreen } from '../../features/content/index.ts';

export default ContentListScreen;
