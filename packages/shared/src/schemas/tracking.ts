// Ad delivery and engagement tracking (ARCHITECTURE.md §5; SPEC.md §7 POST /rest/tracked/view).
import { z } from 'zod';
import { AD_RENDITIONS } from './content.ts';

/** Tokens are made by the server (24 URL-safe characters); anything longer is refused unread. */
export const trackingTokenSchema = z
  .string({ error: 'must be the token of an ad tag' })
  .min(1, { error: 'must be the token of an ad tag' })
  .max(128, { error: 'must be the token of an ad tag' });

/** `GET /t/{token}/ad/{size}.png`: one of SPEC.md §3 "Ad sizes", or `email` (the e-mail rendition). */
export const adTagParams = z.object({
  token: trackingTokenSchema,
  size: z.enum(AD_RENDITIONS, { error: `must be one of ${AD_RENDITIONS.join(', ')}` }),
});

export const clickTagParams = z.object({ token: trackingTokenSchema });

/** `POST /v1/rest/tracked/view`: a landing page view of the target with this token. */
export const trackedViewBody = z.object({ token: trackingTokenSchema });
export type TrackedViewBody = z.infer<typeof trackedViewBody>;

/** `recorded` is false for traffic that is not counted (bots, prefetch, ads off for the cadence). */
export const trackedViewReply = z.object({ recorded: z.boolean() });
export type TrackedViewReply = z.infer<typeof trackedViewReply>;

/** ARCHITECTURE.md §5: the superprospect rule, for screens that explain it. */
export const SUPER_RULE = { clicks: 1, impressions: 15 } as const;

/** What an engagement feed item (`super`, `click`, `view`) carries in its `data`. */
export const engagementFeedDataSchema = z.object({
  first_name: z.string(),
  last_name: z.string(),
  company_name: z.string().nullable(),
  cadence_name: z.string(),
  sales_rep_name: z.string().nullable(),
  day_number: z.number().int(),
  impressions: z.number().int(),
  clicks: z.number().int(),
  views: z.number().int(),
  /** `super` only: what made the target super. */
  reason: z.enum(['click', 'impressions']).optional(),
});
export type EngagementFeedData = z.infer<typeof engagementFeedDataSchema>;

/** Engagement verdicts (issue 38, decision 0017): only a person's impressions and clicks count. */
export const ENGAGEMENT_VERDICTS = ['person', 'machine_open', 'scanner', 'bot'] as const;
export type EngagementVerdict = (typeof ENGAGEMENT_VERDICTS)[number];
export type UncountedVerdict = Exclude<EngagementVerdict, 'person'>;

/** Why an event got its verdict (stored with it). */
export const VERDICT_REASONS = {
  browser: 'a browser',
  gmail_proxy: "Gmail's image proxy, on open",
  yahoo_proxy: "Yahoo and AOL Mail's image proxy, on open",
  outlook_proxy: "Outlook.com's image proxy, on open",
  outlook: 'Outlook opening the message',
  apple_mail: 'Apple Mail opening the message',
  mail_client: 'a mail client opening the message',
  apple_mpp: "Apple Mail Privacy Protection's prefetch",
  gateway_agent: 'a mail security gateway (its user agent)',
  gateway_address: 'a mail security gateway (its address)',
  not_navigation: 'a click that was no page navigation (an image or script fetch)',
  burst: 'several fetches of one message within two seconds',
  no_landing_view: 'a click no browser followed to the landing page',
  proxy_click: 'a mail image proxy fetching the click link',
  head: 'a HEAD probe',
  prefetch: 'a prefetch or prerender',
  no_user_agent: 'no user agent',
  crawler: 'a crawler or tool',
} as const;
export type VerdictReason = keyof typeof VERDICT_REASONS;

/** Events not counted for a target, a cadence or a report, by kind (issue 38). */
export const uncountedSummarySchema = z
  .array(
    z.object({
      type: z.enum(['impression', 'click']),
      verdict: z.enum(['machine_open', 'scanner', 'bot']),
      count: z.number().int(),
    }),
  )
  .describe(
    'Impressions and clicks stored but not counted, by verdict: machine_open (Apple Mail Privacy ' +
      'Protection prefetch), scanner (mail security scanners), bot',
  );
export type UncountedSummary = z.infer<typeof uncountedSummarySchema>;

const VERDICT_WORDS: Record<UncountedVerdict, string> = {
  machine_open: 'by Apple Mail Privacy Protection prefetch',
  scanner: 'by a mail security scanner',
  bot: 'by bots',
};

/** "2 clicks by a mail security scanner not counted", one line per kind. */
export function uncountedLines(summary: UncountedSummary): string[] {
  return summary
    .filter((s) => s.count > 0)
    .map((s) => {
      const noun =
        s.type === 'click' ? (s.count === 1 ? 'click' : 'clicks') : s.count === 1 ? 'open' : 'opens';
      return `${s.count.toLocaleString('en-US')} ${noun} ${VERDICT_WORDS[s.verdict]} not counted`;
    });
}
