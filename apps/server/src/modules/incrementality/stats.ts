/**
 * The lift report's statistics (issue 45; docs/reports.md "Lift"). Pure functions, so the tests can
 * run them over thousands of generated experiments.
 *
 * - Counts of people (targets with a meeting, with an opportunity): the difference of two
 *   independent proportions with Newcombe's hybrid score interval (his method 10: Wilson intervals
 *   of each proportion combined), which keeps close to its 95 % where the simple Wald interval
 *   fails (small or extreme proportions). Newcombe RG, Statistics in Medicine 1998;17:873–890.
 * - Amounts (pipeline, won revenue per target): the difference of two means with Welch's interval
 *   (unequal variances, Welch–Satterthwaite degrees of freedom). Computed from count, sum and sum of
 *   squares, so the database sums and no row leaves it; a bootstrap would need every target's value.
 * - Power: the targets each group needs to detect a relative lift in the meeting rate with a
 *   two-sided 5 % test and 80 % power, for unequal groups (Fleiss, Statistical Methods for Rates and
 *   Proportions, 3rd ed., §4.4, with the allocation ratio).
 */

export const Z_95 = 1.959963984540054;
/** z for 80 % power (one-sided 0.2). */
export const Z_POWER = 0.8416212335729143;

export type Interval = { low: number; high: number };

/** Wilson's score interval of x successes in n (95 %); [0, 1] when n is 0. */
export function wilson(x: number, n: number, z = Z_95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = x / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/** p1 − p2 with Newcombe's hybrid score interval (95 %); null when a group is empty. */
export function newcombeDifference(
  x1: number,
  n1: number,
  x2: number,
  n2: number,
): ({ difference: number } & Interval) | null {
  if (n1 <= 0 || n2 <= 0) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const a = wilson(x1, n1);
  const b = wilson(x2, n2);
  const d = p1 - p2;
  return {
    difference: d,
    low: d - Math.sqrt((p1 - a.low) ** 2 + (b.high - p2) ** 2),
    high: d + Math.sqrt((a.high - p1) ** 2 + (p2 - b.low) ** 2),
  };
}

/** A group's amounts as the database sums them. */
export type Moments = { n: number; sum: number; sumSquares: number };

/** Student's t quantile for 97.5 %, by the Cornish–Fisher expansion around z (good to 1e-3 at df ≥ 3). */
export function t975(df: number): number {
  if (!Number.isFinite(df) || df > 1e6) return Z_95;
  const z = Z_95;
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  const g3 = (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / 384;
  return z + g1 / df + g2 / df ** 2 + g3 / df ** 3;
}

/** mean1 − mean2 with Welch's interval (95 %); null when a group has fewer than two members. */
export function welchDifference(a: Moments, b: Moments): ({ difference: number } & Interval) | null {
  if (a.n < 2 || b.n < 2) return null;
  const m1 = a.sum / a.n;
  const m2 = b.sum / b.n;
  const v1 = Math.max(0, (a.sumSquares - a.n * m1 * m1) / (a.n - 1));
  const v2 = Math.max(0, (b.sumSquares - b.n * m2 * m2) / (b.n - 1));
  const s1 = v1 / a.n;
  const s2 = v2 / b.n;
  const se = Math.sqrt(s1 + s2);
  const d = m1 - m2;
  if (se === 0) return { difference: d, low: d, high: d };
  const df = (s1 + s2) ** 2 / ((s1 * s1) / (a.n - 1) + (s2 * s2) / (b.n - 1));
  const half = t975(df) * se;
  return { difference: d, low: d - half, high: d + half };
}

/**
 * Targets each group needs to detect the meeting rate moving from `baseline` (held out) to
 * `baseline × (1 + lift)` (exposed), with `ratio` exposed per held-out target; null when the
 * baseline is 0 or the lift moves nothing (no finite size answers it).
 */
export function targetsNeeded(
  baseline: number,
  lift: number,
  ratio: number,
): { heldOut: number; exposed: number } | null {
  const p0 = baseline;
  const p1 = Math.min(1, baseline * (1 + lift));
  if (p0 <= 0 || p0 >= 1 || p1 === p0 || ratio <= 0) return null;
  const k = ratio;
  const pBar = (k * p1 + p0) / (k + 1);
  const a = Z_95 * Math.sqrt(pBar * (1 - pBar) * (1 + 1 / k));
  const b = Z_POWER * Math.sqrt((p1 * (1 - p1)) / k + p0 * (1 - p0));
  const heldOut = Math.ceil((a + b) ** 2 / (p1 - p0) ** 2);
  return { heldOut, exposed: Math.ceil(heldOut * k) };
}
