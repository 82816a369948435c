import type { AdapterContext } from '../../../integrations/adapter-context.ts';
import { VendorError } from '../../../integrations/vendor-http.ts';

/**
 * Salesforce's API allocation (issue 40 item 7). Every REST reply carries `Sforce-Limit-Info:
 * api-usage=used/max`: the org's calls in the last 24 hours against its allocation, shared by every
 * integration of the org (Salesforce Help, "System Overview: API Usage": "Limits are enforced against
 * the aggregate of all API calls made to the org in a 24-hour period … When an org exceeds a limit,
 * all users in the org can be temporarily blocked"). Rally reads it on every reply, keeps the figure
 * on the connection, and stops before it leaves less than RESERVE of the allocation to the others.
 */

/** The share of the org's allocation Rally leaves to the org's other integrations. */
export const SALESFORCE_API_RESERVE = 0.15;
/** A figure stored over the line is trusted this long; after it one call checks again. */
export const SALESFORCE_RECHECK_MS = 3_600_000;

export type ApiUsage = { used: number; max: number };

/** `api-usage=10018/100000; api-bursts=1/750` → { used: 10018, max: 100000 }. */
export function parseLimitInfo(header: string | null): ApiUsage | null {
  const m = /api-usage=(\d+)\/(\d+)/.exec(header ?? '');
  if (!m) return null;
  const used = Number(m[1]);
  const max = Number(m[2]);
  return max > 0 ? { used, max } : null;
}

const fmt = (n: number) => n.toLocaleString('en-US');

export const salesforceBudgetMessage = (u: ApiUsage) =>
  `Salesforce's daily API allocation is nearly used: ${fmt(u.used)} of ${fmt(u.max)} calls in the last ` +
  `24 hours (${Math.round((u.used / u.max) * 100)} %). Rally stops at ${Math.round((1 - SALESFORCE_API_RESERVE) * 100)} % ` +
  "to leave the rest to the org's other integrations, and syncs again once the usage falls.";

export const SALESFORCE_LIMIT_EXCEEDED_MESSAGE =
  "Salesforce refused the call: the org's daily API allocation is used up (REQUEST_LIMIT_EXCEEDED). " +
  'Rally syncs again once the usage of the last 24 hours falls below it.';

/** The org's allocation is (nearly) used: the run stops; the next one goes on from the stored cursors. */
export class SalesforceBudgetError extends VendorError {
  constructor(message: string) {
    super('Salesforce', 403, message);
    this.message = message;
  }
}

/** Per adapter: the newest figure each context saw (a run's calls share it). */
export function createApiBudget(now: () => number = Date.now) {
  const seen = new WeakMap<AdapterContext, ApiUsage & { at: number }>();
  const over = (u: ApiUsage) => u.used >= u.max * (1 - SALESFORCE_API_RESERVE);
  return {
    /** Reads a reply's header: keeps the figure and hands it to the engine. */
    observe(ctx: AdapterContext, headers: Headers) {
      const usage = parseLimitInfo(headers.get('sforce-limit-info'));
      if (!usage) return;
      seen.set(ctx, { ...usage, at: now() });
      ctx.reportUsage?.(usage);
    },
    /** Before a call: throws when the allocation is nearly used (as this run saw it, or as stored lately). */
    check(ctx: AdapterContext) {
      const mine = seen.get(ctx);
      if (mine) {
        if (over(mine)) throw new SalesforceBudgetError(salesforceBudgetMessage(mine));
        return;
      }
      const stored = ctx.apiUsage;
      if (stored && over(stored) && now() - Date.parse(stored.at) < SALESFORCE_RECHECK_MS) {
        throw new SalesforceBudgetError(salesforceBudgetMessage(stored));
      }
    },
  };
}
