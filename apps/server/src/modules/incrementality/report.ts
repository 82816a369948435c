import { SUPERPROSPECT_PRICE_CENTS } from '@rally/shared/schemas/billing';
import type { LiftReport } from '@rally/shared/schemas/lift';
import type { GroupSums } from './repository.ts';
import { newcombeDifference, targetsNeeded, welchDifference } from './stats.ts';

type Sums = { exposed: GroupSums; heldOut: GroupSums; currency: string; heldOutShare: number };
type Options = { scope: LiftReport['scope']; windowDays: number; minLiftPercent: number };

const round = (v: number, places = 2) => Math.round(v * 10 ** places) / 10 ** places;
const per100 = (x: number, n: number) => (n > 0 ? round((100 * x) / n) : null);

function proportion(a: number, n1: number, b: number, n2: number): LiftReport['lift']['meetings'] {
  const d = newcombeDifference(a, n1, b, n2);
  if (!d) return null;
  return {
    difference: round(100 * d.difference),
    low: round(100 * d.low),
    high: round(100 * d.high),
    excludes_zero: d.low > 0 || d.high < 0,
    method: 'newcombe',
  };
}

function amount(a: GroupSums, b: GroupSums, key: 'pipeline' | 'won'): LiftReport['lift']['pipeline'] {
  const d = welchDifference(
    { n: a.targets, sum: a[key].sum, sumSquares: a[key].sumSquares },
    { n: b.targets, sum: b[key].sum, sumSquares: b[key].sumSquares },
  );
  if (!d) return null;
  return {
    difference: round(100 * d.difference),
    low: round(100 * d.low),
    high: round(100 * d.high),
    excludes_zero: d.low > 0 || d.high < 0,
    method: 'welch',
  };
}

const groupOut = (g: GroupSums) => ({
  targets: g.targets,
  meetings: g.meetings,
  with_opportunity: g.withOpportunity,
  opportunities: g.opportunities,
  pipeline: round(g.pipeline.sum),
  won: round(g.won.sum),
  superprospects: g.superprospects,
});

const rates = (g: GroupSums) => ({
  meetings: per100(g.meetings, g.targets),
  with_opportunity: per100(g.withOpportunity, g.targets),
  pipeline: per100(g.pipeline.sum, g.targets),
  won: per100(g.won.sum, g.targets),
});

/**
 * The targets still needed before the meeting-rate comparison has 80 % power for the lift asked:
 * from the held-out rate (else the exposed one, as the best guess of the baseline), at the groups'
 * current ratio. Null when no meeting was seen yet (no baseline to plan from).
 */
function stillNeeded(s: Sums, minLift: number): number | null {
  const { exposed: e, heldOut: h } = s;
  const baseline =
    h.targets > 0 && h.meetings > 0 ? h.meetings / h.targets : e.targets > 0 ? e.meetings / e.targets : 0;
  const ratio = h.targets > 0 && e.targets > 0 ? e.targets / h.targets : 9;
  const need = targetsNeeded(baseline, minLift / 100, ratio);
  if (!need) return null;
  const shortHeld = Math.max(0, need.heldOut - h.targets);
  const shortExposed = Math.max(0, need.exposed - e.targets);
  // Targets arrive split by the share: the group furthest behind decides how many more must enter.
  const share = h.targets + e.targets > 0 ? h.targets / (h.targets + e.targets) : 0.1;
  return Math.ceil(Math.max(share > 0 ? shortHeld / share : 0, share < 1 ? shortExposed / (1 - share) : 0));
}

export function liftReport(s: Sums, o: Options): LiftReport {
  const { exposed: e, heldOut: h } = s;
  const lift = {
    meetings: proportion(e.meetings, e.targets, h.meetings, h.targets),
    with_opportunity: proportion(e.withOpportunity, e.targets, h.withOpportunity, h.targets),
    pipeline: amount(e, h, 'pipeline'),
    won: amount(e, h, 'won'),
  };
  const needed = h.targets > 0 ? stillNeeded(s, o.minLiftPercent) : null;
  const status: LiftReport['status'] =
    h.targets === 0 || e.targets === 0
      ? 'no_holdout'
      : needed === null || needed > 0
        ? 'not_enough_data'
        : 'measured';
  const fee = (e.superprospects * SUPERPROSPECT_PRICE_CENTS) / 100;
  // Incremental people = the difference in rate × the exposed; a cost only where the lift is real.
  const perIncremental = (d: LiftReport['lift']['meetings']) =>
    d && d.excludes_zero && d.difference > 0 ? round(fee / ((d.difference / 100) * e.targets)) : null;
  const message =
    status === 'no_holdout'
      ? 'No prospects have been held out here yet: turn a holdout on for a cadence or cohort, and prospects who enter from then on are compared.'
      : status === 'not_enough_data'
        ? needed === null
          ? 'Not enough data yet: no meeting has been recorded in either group, so the size needed cannot be estimated.'
          : `Not enough data yet: about ${needed.toLocaleString('en-US')} more prospects are needed to detect a ${o.minLiftPercent} % lift in meetings.`
        : lift.meetings?.excludes_zero
          ? 'Measured: the ads changed the meeting rate (the 95 % interval excludes zero).'
          : 'Measured: no difference in the meeting rate can be told from chance (the 95 % interval includes zero).';
  return {
    scope: o.scope,
    window_days: o.windowDays,
    min_lift_percent: o.minLiftPercent,
    currency: s.currency,
    held_out_share: round(s.heldOutShare, 4),
    groups: { exposed: groupOut(e), held_out: groupOut(h) },
    per_100: { exposed: rates(e), held_out: rates(h) },
    lift,
    status,
    targets_needed: status === 'measured' ? 0 : needed,
    message,
    cost: {
      rally_fee: round(fee),
      ad_spend: null,
      per_incremental_meeting: perIncremental(lift.meetings),
      per_incremental_opportunity: perIncremental(lift.with_opportunity),
    },
  };
}
