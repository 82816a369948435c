import { DefaultLayout } from '../components/layouts/default-layout.tsx';
import { GlobalSearch } from '../features/search/index.ts';

/** The default layout with what only the app may put into it: the global search in the header (issue 17). */
export function AppShell() {
  return <DefaultLayout headerSearch={<GlobalSearch />} />;
}
