import { InvoicePage } from '../../features/billing/index.ts';

export default InvoicePage;
