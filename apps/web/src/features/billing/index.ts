export { BillingScreen } from './components/billing-screen.tsx';
export { InvoicePage } from './components/invoice-page.tsx';
export { balanceQueryOptions } from './api/billing.ts';
