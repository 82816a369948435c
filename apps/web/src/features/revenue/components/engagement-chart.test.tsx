import { screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { formatDay, formatMonth } from '@rally/shared';
import { renderWithRouter } from '../../../testing/render.tsx';
import { ENGAGEMENT_SERIES, EngagementChart, isEmptyEngagement, periodLabel } from './engagement-chart.tsx';

const row = (date: string, impressions: number, clicks = 0, views = 0, supers = 0) => ({
  date,
  impressions,
  clicks,
  views,
  new_superprospects: supers,
});

describe('the engagement chart (issue 42 item 10)', () => {
  it('names a week "Week of 9 Nov" in the locale, a day and a month as the shared helpers do', () => {
    expect(periodLabel('2026-11-09', 'weekly', 'en-GB')).toBe('Week of 9 Nov');
    expect(periodLabel('2026-11-09', 'weekly', 'en-US')).toBe('Week of Nov 9');
    expect(periodLabel('2026-11-09', 'daily', 'en-GB')).toBe(formatDay('2026-11-09', 'en-GB'));
    expect(periodLabel('2026-11-01', 'monthly', 'en-GB')).toBe(formatMonth('2026-11-01', 'en-GB'));
  });

  it('a period with nothing is an empty state, not flat lines', () => {
    expect(isEmptyEngagement([row('2026-11-02', 0), row('2026-11-09', 0)])).toBe(true);
    expect(isEmptyEngagement([])).toBe(true);
    expect(isEmptyEngagement([row('2026-11-02', 0, 1)])).toBe(false);
    renderWithRouter(<EngagementChart rows={[row('2026-11-02', 0)]} view="weekly" />);
    expect(screen.getByTestId('engagement-empty')).toHaveTextContent('No engagement in this period');
  });

  it('clicks, views and superprospects are drawn against an axis of their own', () => {
    expect(ENGAGEMENT_SERIES.map((x) => [x.name, x.yAxisId ?? 'left'])).toEqual([
      ['impressions', 'left'],
      ['clicks', 'right'],
      ['views', 'right'],
      ['new_superprospects', 'right'],
    ]);
    renderWithRouter(<EngagementChart rows={[row('2026-11-02', 400, 3, 1, 2)]} view="weekly" />);
    expect(screen.queryByTestId('engagement-empty')).toBeNull();
  });
});
