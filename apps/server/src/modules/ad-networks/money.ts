/**
 * Amounts the networks report in a currency's major unit as decimal text (Meta insights `spend`:
 * "5339.5") turned into its minor unit (cents) without floating-point error. The number of minor
 * digits is the currency's (ISO 4217 via Intl: USD 2, JPY 0, KWD 3); an unknown currency counts 2.
 */
export function minorDigits(currency: string | null | undefined): number {
  if (!currency) return 2;
  try {
    return (
      new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ??
      2
    );
  } catch {
    return 2;
  }
}

/** "5339.5" in USD → 533950; null for text that is not a plain non-negative decimal. */
export function majorToMinor(
  text: string | number | null | undefined,
  currency: string | null,
): number | null {
  if (text === null || text === undefined) return 0;
  const s = String(text).trim();
  const m = /^(\d+)(?:\.(\d+))?$/.exec(s);
  if (!m) return null;
  const digits = minorDigits(currency);
  const frac = (m[2] ?? '').padEnd(digits + 1, '0');
  const whole = Number(m[1]) * 10 ** digits + Number(frac.slice(0, digits) || '0');
  // Half up on the first dropped digit (the networks report at most the currency's precision).
  return whole + (Number(frac[digits] ?? '0') >= 5 ? 1 : 0);
}
