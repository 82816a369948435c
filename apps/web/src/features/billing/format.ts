import { formatDay } from '@rally/shared';
/** SPEC.md §9: amounts are in cents and shown divided by 100. */
export function money(cents: number, currency = 'usd'): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency: currency.toUpperCase() }).format(
    cents / 100,
  );
}

const BRANDS: Record<string, string> = {
  visa: 'Visa',
  mastercard: 'Mastercard',
  amex: 'American Express',
  discover: 'Discover',
  jcb: 'JCB',
  diners: 'Diners Club',
  unionpay: 'UnionPay',
};
export const brandName = (brand: string) => BRANDS[brand] ?? 'Card';

export function shortDate(iso: string): string {
  return formatDay(iso);
}

/** `2026-03` → "March 2026". */
export function monthName(period: string): string {
  const [y, m] = period.split('-').map(Number) as [number, number];
  return new Date(Date.UTC(y, m - 1, 1)).toLocaleDateString(undefined, {
    month: 'long',
    year: 'numeric',
    timeZone: 'UTC',
  });
}
