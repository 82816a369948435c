// Number abbreviation (SPEC.md §9: "Number abbreviation suffixes K, MM, B, T, P, E").

/** Thousand, million (MM, the finance spelling), billion, trillion, quadrillion, quintillion. */
export const NUMBER_SUFFIXES = ['K', 'MM', 'B', 'T', 'P', 'E'] as const;

/**
 * Abbreviates a number with the largest suffix that keeps it at or above 1: 1500 → '1.5K',
 * 2_000_000 → '2MM', 999 → '999', -1500 → '-1.5K'.
 * Rounds to 1 decimal, half away from zero, and drops a trailing '.0'; a value that rounds up to
 * 1000 moves to the next suffix (999_950 → '1MM', not '1000K'). Past E the number keeps growing
 * ('1500E'). Non-finite input throws a RangeError.
 */
export function abbreviateNumber(value: number): string {
  if (!Number.isFinite(value)) throw new RangeError(`Cannot abbreviate ${String(value)}`);
  const magnitude = Math.abs(value);
  let tier = 0;
  let tenths = Math.round(magnitude * 10);
  while (tenths >= 10_000 && tier < NUMBER_SUFFIXES.length) {
    tier += 1;
    // one division by an exact power of ten, so 999_950 is 9999.5 tenths of a K and rounds up
    tenths = Math.round(magnitude / 10 ** (3 * tier - 1));
  }
  // -0.04 rounds to 0, which should not read '-0'
  if (tenths === 0) return '0';
  const sign = value < 0 ? '-' : '';
  const suffix = tier === 0 ? '' : (NUMBER_SUFFIXES[tier - 1] ?? '');
  return `${sign}${String(tenths / 10)}${suffix}`;
}

/**
 * A whole count as the reader's locale writes it (1,234 in en-US, 1.234 in de-DE): the one way a
 * count is shown in full where it is not abbreviated. `locale` defaults to the runtime's (the
 * browser's language in the web app).
 */
export function formatCount(value: number, locale?: string): string {
  return new Intl.NumberFormat(locale, { maximumFractionDigits: 0 }).format(value);
}

/**
 * A multiple ("pipeline was 11.1K× the spend"), abbreviated as every number (SPEC.md §9): 11116.6 is
 * "11.1K×", 2.25 is "2.3×"; null (no spend to divide by) is "—".
 */
export function formatMultiple(ratio: number | null): string {
  return ratio === null ? '—' : `${abbreviateNumber(ratio)}×`;
}
