import { z } from 'zod';

/** Epoch seconds from 2000-01-01 to 2100-01-01 (SPEC.md §9): far outside either is a mistake, not a date. */
export const EPOCH_MIN = 946_684_800;
export const epochSeconds = z.coerce
  .number({ error: 'must be a date as epoch seconds' })
  .int('must be a date as epoch seconds')
  .min(EPOCH_MIN, 'must be a date as epoch seconds after 2000-01-01')
  .max(4_102_444_800, 'must be a date as epoch seconds before 2100-01-01');

/**
 * `from` and `to` (epoch seconds, `to` exclusive, both optional) spanning at most `maxDays`. `to` left
 * out is now, so `from` alone may not open a longer range either: from=2000-01-01 once read 26 years
 * of a report (40–60 s on the demo data, the fuzz suite's slowest reply).
 */
export function boundedRangeQuery(maxDays: number) {
  return z.object({ from: epochSeconds.optional(), to: epochSeconds.optional() }).superRefine((q, ctx) => {
    if (q.from !== undefined && q.to !== undefined) {
      if (q.to <= q.from) ctx.addIssue({ code: 'custom', path: ['to'], message: 'must be after from' });
      else if (q.to - q.from > maxDays * 86_400)
        ctx.addIssue({ code: 'custom', path: ['to'], message: `must be at most ${maxDays} days after from` });
    } else if (
      q.from !== undefined &&
      q.from >= EPOCH_MIN && // (a from before 2000 is refused above, once)
      Date.now() / 1000 - q.from > maxDays * 86_400
    )
      ctx.addIssue({
        code: 'custom',
        path: ['from'],
        message: `must be at most ${maxDays} days before to (now, when to is left out)`,
      });
  });
}
