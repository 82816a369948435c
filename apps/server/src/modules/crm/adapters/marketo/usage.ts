import type { AdapterContext } from '../../../integrations/adapter-context.ts';

/**
 * Marketo calls used today (issue 40 item 1, the connection health panel). Marketo's REST replies
 * carry no usage figure (no headers; API-NOTES §6), so the adapter counts the REST calls it sends
 * for each connection (identity calls are not counted: Adobe's quota is on API calls) and hands the
 * figure to the sync engine after each one, which stores it as `integrations.api_usage` with every
 * page and at the end of the sync, a failed one (607) included. A sync starts from the stored
 * figure when it was stored the same day in US Central time — Marketo's quota day (Adobe, Marketo
 * REST API: "Daily Quota: Subscriptions are allocated 50,000 API calls per day (which resets daily
 * at 12:00AM CST)") — and from 0 on a new day; a sync that runs past midnight starts again at 0.
 *
 * `max` is Adobe's default daily quota: the adapter has no daily budget of its own (it paces to 50
 * calls per 20 s) and Marketo does not tell a subscription's own quota through the REST API. The
 * count is Rally's calls only; the subscription's other integrations share the same quota.
 */
export const MARKETO_DAILY_QUOTA = 50_000;

/** The US Central calendar day of a time, as YYYY-MM-DD. */
export const centralDay = (t: number) =>
  new Intl.DateTimeFormat('en-CA', { timeZone: 'America/Chicago' }).format(new Date(t));

export function createMarketoUsage(now: () => number = Date.now) {
  const counts = new WeakMap<AdapterContext, { day: string; used: number }>();
  return {
    /** One REST call is about to go to Marketo on this connection: count it and report today's figure. */
    count(ctx: AdapterContext) {
      const day = centralDay(now());
      let mine = counts.get(ctx);
      if (!mine || mine.day !== day) {
        const stored = ctx.apiUsage;
        const sameDay = !mine && stored && centralDay(Date.parse(stored.at)) === day;
        mine = { day, used: sameDay ? stored.used : 0 };
        counts.set(ctx, mine);
      }
      mine.used += 1;
      ctx.reportUsage?.({ used: mine.used, max: MARKETO_DAILY_QUOTA });
    },
  };
}
