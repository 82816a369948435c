import { SalesRepsScreen } from '../../features/integrations/index.ts';

export default SalesRepsScreen;
