/**
 * One definition per number the app shows (issue 42 item 6), in the user's words, shown in a tooltip
 * beside the number wherever it appears, so that the same word means the same count on every screen.
 * docs/reports.md holds the attribution model these summarise.
 */
export const METRIC_DEFINITIONS = {
  impressions: 'Times a prospect was shown one of your ads (scanners, prefetches and bots are not counted).',
  clicks: 'Clicks on your ads by prospects (security scanners and bots are not counted).',
  views: 'Visits by prospects to your landing pages.',
  superprospects:
    'Prospects whose engagement with your ads passed the cadence’s threshold; each is billed once per cadence or cohort.',
  contacted:
    'Prospects your sales team reached: the sequence platform says a step reached them, or the CRM records sales outreach to them.',
  contacted_after:
    'Superprospects your sales team reached (CRM outreach) on or after the day they became superprospects.',
  engaged_accounts:
    'Accounts with at least one impression, click or landing page view by any of their prospects in the period.',
  pipeline_generated:
    'Amount of opportunities created in the period whose account engaged with your ads within the attribution window before.',
  pipeline_progressed:
    'Amount of opportunities that moved forward into a selected or valuable stage in the period, with engagement within the window before the move.',
  revenue_influenced:
    'Amount of deals won in the period whose account engaged with your ads within the attribution window before they closed.',
} as const;

export type MetricTerm = keyof typeof METRIC_DEFINITIONS;
