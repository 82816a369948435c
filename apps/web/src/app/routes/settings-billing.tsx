import { BillingScreen } from '../../features/billing/index.ts';

export default BillingScreen;
