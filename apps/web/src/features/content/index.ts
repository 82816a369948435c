export { AdEditorScreen } from './components/ad-editor-screen.tsx';
export { ContentListScreen } from './components/content-list-screen.tsx';
export { DomainSettingsScreen } from './components/domain-settings-screen.tsx';
export { FacebookSettingsScreen } from './components/facebook-settings-screen.tsx';
export { LandingPageEditorScreen } from './components/landing-page-editor-screen.tsx';
export { LandingPagesScreen } from './components/landing-pages-screen.tsx';
export { WebsiteSettingsScreen } from './components/website-settings-screen.tsx';
