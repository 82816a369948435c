import { ProspectsScreen } from '../../features/prospects/index.ts';

export default function ProspectsRoute() {
  return <ProspectsScreen />;
}
