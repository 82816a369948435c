import { CadencesScreen } from '../../features/cadences/index.ts';
import { SourceLogo } from '../../features/integrations/index.ts';

// Features meet here: the cadence list shows each cadence's source with the integrations' logo.
export default function CadencesRoute() {
  return <CadencesScreen SourceLogo={SourceLogo} />;
}
