import { VisuallyHidden } from '@mantine/core';
import { abbreviateNumber } from '@rally/shared';

/**
 * A large count or amount as the SPEC.md §9 abbreviation (K, MM, B, T, P, E: 12,400 → 12.4K), with
 * the full number kept: in the title (shown on hover) and as the text screen readers read. Under
 * 1,000 the number is shown as it is.
 */
export function AbbreviatedNumber({
  value,
  prefix = '',
  full,
}: {
  value: number;
  /** Put before the abbreviation: a currency symbol. */
  prefix?: string;
  /** The full number as it should be read ("$12,400"); by default the value with thousands separators. */
  full?: string;
}) {
  const short = `${prefix}${abbreviateNumber(value)}`;
  const whole = full ?? `${prefix}${value.toLocaleString()}`;
  if (short === whole) return <>{short}</>;
  return (
    <span title={whole} data-abbreviated>
      <span aria-hidden="true">{short}</span>
      <VisuallyHidden>{whole}</VisuallyHidden>
    </span>
  );
}
