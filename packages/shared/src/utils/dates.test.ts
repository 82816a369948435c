import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  DATE_PATTERN,
  RELATIVE_TIME_UPDATE_INTERVAL_MS,
  daysAgo,
  daysBetween,
  durationInSeconds,
  formatDate,
  formatDay,
  formatDayRange,
  formatDayTime,
  formatShortDay,
  formatWeekOf,
  formatMonth,
  formatDuration,
  relativeDayLabel,
  relativeTime,
  subtractDays,
  toDate,
  toUnixSeconds,
  today,
} from './dates.ts';

// A zone west of UTC with daylight saving, so local and UTC results differ and DST edges are real.
// Node re-reads TZ when process.env.TZ is assigned, which vi.stubEnv does.
beforeAll(() => {
  vi.stubEnv('TZ', 'America/New_York');
});
afterAll(() => {
  vi.unstubAllEnvs();
});

const CONTRACT = 'Date helper contract';

describe(`${CONTRACT} (SPEC.md §3)`, () => {
  it('runs in America/New_York (the premise of the local/UTC cases below)', () => {
    expect(new Date('2024-01-15T12:00:00Z').getTimezoneOffset()).toBe(300);
  });

  describe('"format a date string (optionally as UTC)"', () => {
    it('formats in local time by default with the year-month-day pattern', () => {
      expect(DATE_PATTERN).toBe('yyyy-MM-dd');
      expect(formatDate('2024-03-05T02:30:00Z')).toBe('2024-03-04');
      expect(formatDate('2024-03-05T02:30:00Z', 'yyyy-MM-dd HH:mm')).toBe('2024-03-04 21:30');
    });

    it('formats the UTC fields when asked', () => {
      expect(formatDate('2024-03-05T02:30:00Z', DATE_PATTERN, { utc: true })).toBe('2024-03-05');
      expect(formatDate('2024-03-05T02:30:15.250Z', 'yyyy-MM-dd HH:mm:ss.SSS', { utc: true })).toBe(
        '2024-03-05 02:30:15.250',
      );
      expect(formatDate('2024-12-31T23:59:59Z', 'yyyy-MM-dd HH:mm:ss', { utc: true })).toBe(
        '2024-12-31 23:59:59',
      );
    });

    it('reads a zone-less string as local time', () => {
      expect(formatDate('2024-03-05', 'yyyy-MM-dd HH:mm')).toBe('2024-03-05 00:00');
      expect(formatDate('2024-03-05', 'yyyy-MM-dd HH:mm', { utc: true })).toBe('2024-03-05 05:00');
    });

    it('accepts Date objects and epoch milliseconds', () => {
      expect(formatDate(new Date(Date.UTC(2024, 0, 1, 12)), 'yyyy-MM-dd')).toBe('2024-01-01');
      expect(formatDate(0, 'yyyy-MM-dd HH:mm', { utc: true })).toBe('1970-01-01 00:00');
    });

    it('keeps years before 100 in UTC mode (no 1900 shift)', () => {
      const year50 = new Date(0);
      year50.setUTCFullYear(50, 5, 1);
      expect(formatDate(year50, 'yyyy-MM-dd', { utc: true })).toBe('0050-06-01');
    });

    it('rejects invalid input with a RangeError', () => {
      expect(() => formatDate('not a date')).toThrow(RangeError);
      expect(() => formatDate('2024-13-01')).toThrow(RangeError);
      expect(() => formatDate('')).toThrow(RangeError);
      expect(() => formatDate(Number.NaN)).toThrow(RangeError);
      expect(() => toDate(new Date('nope'))).toThrow('Invalid date');
    });
  });

  describe('"today\'s date (default pattern year-month-day)"', () => {
    it('uses the local calendar day', () => {
      // 03:00 UTC on 10 March is still 9 March in New York
      expect(today(undefined, new Date('2024-03-10T03:00:00Z'))).toBe('2024-03-09');
    });

    it('takes another pattern', () => {
      expect(today('dd/MM/yyyy', new Date('2024-03-10T15:00:00Z'))).toBe('10/03/2024');
    });

    it('defaults to the real clock', () => {
      expect(today()).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    });
  });

  describe('"days between two dates"', () => {
    it('counts calendar days, negative when the second date is earlier', () => {
      expect(daysBetween('2024-03-01', '2024-03-05')).toBe(4);
      expect(daysBetween('2024-03-05', '2024-03-01')).toBe(-4);
      expect(daysBetween('2024-03-05', '2024-03-05')).toBe(0);
    });

    it('counts a calendar day even when less than 24 hours apart', () => {
      expect(daysBetween('2024-03-05T23:59:00', '2024-03-06T00:01:00')).toBe(1);
      expect(daysBetween('2024-03-05T00:00:00', '2024-03-05T23:59:59')).toBe(0);
    });

    it('does not lose a day across the daylight-saving change (10 March 2024 is 23 hours long)', () => {
      expect(daysBetween('2024-03-09T12:00:00', '2024-03-11T00:00:00')).toBe(2);
      expect(daysBetween('2024-02-28', '2024-03-01')).toBe(2); // leap year
    });

    it('rejects invalid dates', () => {
      expect(() => daysBetween('2024-03-01', 'soon')).toThrow(RangeError);
    });
  });

  describe('"relative label (Yesterday, Today, or Month, day)"', () => {
    const now = new Date('2024-03-10T16:00:00Z'); // 12:00 local, 10 March

    it('says Today for the same local calendar day, from midnight to midnight', () => {
      expect(relativeDayLabel('2024-03-10T00:00:00', now)).toBe('Today');
      expect(relativeDayLabel('2024-03-10T23:59:59', now)).toBe('Today');
      // 02:00 UTC on 11 March is still 10 March in New York
      expect(relativeDayLabel('2024-03-11T02:00:00Z', now)).toBe('Today');
    });

    it('says Yesterday for the previous calendar day', () => {
      expect(relativeDayLabel('2024-03-09T00:00:00', now)).toBe('Yesterday');
      expect(relativeDayLabel('2024-03-09T23:59:59', now)).toBe('Yesterday');
    });

    it('says month and day otherwise, including future days and other years', () => {
      expect(relativeDayLabel('2024-03-08T23:59:59', now)).toBe('March 8');
      expect(relativeDayLabel('2024-03-05', now)).toBe('March 5');
      expect(relativeDayLabel('2024-03-11T12:00:00', now)).toBe('March 11');
      expect(relativeDayLabel('2023-12-25', now)).toBe('December 25');
    });

    it('says Yesterday across a month and a year boundary', () => {
      expect(relativeDayLabel('2023-12-31T20:00:00', new Date('2024-01-01T10:00:00'))).toBe('Yesterday');
    });

    it('rejects invalid dates', () => {
      expect(() => relativeDayLabel('yesterday', now)).toThrow(RangeError);
    });
  });

  describe('"date to Unix seconds"', () => {
    it('returns whole seconds since the epoch, dropping milliseconds', () => {
      expect(toUnixSeconds('1970-01-01T00:00:00Z')).toBe(0);
      expect(toUnixSeconds('2024-03-05T00:00:00Z')).toBe(1_709_596_800);
      expect(toUnixSeconds('2024-03-05T00:00:00.999Z')).toBe(1_709_596_800);
      expect(toUnixSeconds(new Date(1_500))).toBe(1);
    });

    it('reads a zone-less string as local time', () => {
      expect(toUnixSeconds('2024-03-05T00:00:00')).toBe(1_709_596_800 + 5 * 3600);
    });

    it('handles dates before the epoch', () => {
      expect(toUnixSeconds('1969-12-31T23:59:59Z')).toBe(-1);
    });

    it('rejects invalid dates', () => {
      expect(() => toUnixSeconds('x')).toThrow(RangeError);
    });
  });

  describe('"date N days ago as year-month-day"', () => {
    const now = new Date('2024-03-01T12:00:00');

    it('counts back calendar days from now', () => {
      expect(daysAgo(0, now)).toBe('2024-03-01');
      expect(daysAgo(1, now)).toBe('2024-02-29');
      expect(daysAgo(30, now)).toBe('2024-01-31');
      expect(daysAgo(366, now)).toBe('2023-03-01');
    });

    it('goes forward for negative N', () => {
      expect(daysAgo(-1, now)).toBe('2024-03-02');
    });

    it('uses the local day, not the UTC day', () => {
      expect(daysAgo(1, new Date('2024-03-10T03:00:00Z'))).toBe('2024-03-08');
    });
  });

  describe('"subtract days"', () => {
    it('returns a new date N calendar days earlier', () => {
      const start = new Date('2024-03-05T10:00:00');
      const result = subtractDays(start, 3);
      expect(formatDate(result, "yyyy-MM-dd'T'HH:mm")).toBe('2024-03-02T10:00');
      expect(start.toISOString()).toBe(new Date('2024-03-05T10:00:00').toISOString());
    });

    it('keeps the local time of day across the daylight-saving change', () => {
      const result = subtractDays('2024-03-11T10:00:00', 2);
      expect(formatDate(result, "yyyy-MM-dd'T'HH:mm")).toBe('2024-03-09T10:00');
    });

    it('accepts strings and rejects invalid dates', () => {
      expect(formatDate(subtractDays('2024-01-01', 1))).toBe('2023-12-31');
      expect(() => subtractDays('nope', 1)).toThrow(RangeError);
    });
  });

  describe('"durations"', () => {
    it('measures whole seconds between two dates', () => {
      expect(durationInSeconds('2024-03-05T10:00:00Z', '2024-03-05T11:02:03Z')).toBe(3723);
      expect(durationInSeconds('2024-03-05T11:02:03Z', '2024-03-05T10:00:00Z')).toBe(-3723);
      expect(durationInSeconds('2024-03-05T10:00:00.000Z', '2024-03-05T10:00:00.999Z')).toBe(0);
    });

    it('labels seconds under a minute as Ys', () => {
      expect(formatDuration(0)).toBe('0s');
      expect(formatDuration(59)).toBe('59s');
      expect(formatDuration(59.99)).toBe('59s');
    });

    it('labels a minute up to an hour as Xm Ys', () => {
      expect(formatDuration(60)).toBe('1m 0s');
      expect(formatDuration(303)).toBe('5m 3s');
      expect(formatDuration(3599)).toBe('59m 59s');
    });

    it('labels an hour and more as Xh Ym, without rolling into days', () => {
      expect(formatDuration(3600)).toBe('1h 0m');
      expect(formatDuration(3723)).toBe('1h 2m');
      expect(formatDuration(26 * 3600 + 59)).toBe('26h 0m');
    });

    it('rejects negative and non-finite durations', () => {
      expect(() => formatDuration(-1)).toThrow(RangeError);
      expect(() => formatDuration(Number.NaN)).toThrow(RangeError);
      expect(() => formatDuration(Number.POSITIVE_INFINITY)).toThrow(RangeError);
    });
  });
});

describe('"Relative time: \'just now\' under 60 s; update interval 30 s." (SPEC.md §9)', () => {
  const now = new Date('2024-03-10T12:00:00Z');
  const before = (ms: number) => new Date(now.getTime() - ms);

  it('exports the 30 s update interval', () => {
    expect(RELATIVE_TIME_UPDATE_INTERVAL_MS).toBe(30_000);
  });

  it("says 'just now' from 0 up to 59.999 s", () => {
    expect(relativeTime(now, now)).toBe('just now');
    expect(relativeTime(before(59_000), now)).toBe('just now');
    expect(relativeTime(before(59_999), now)).toBe('just now');
  });

  it("stops saying 'just now' at exactly 60 s", () => {
    expect(relativeTime(before(60_000), now)).toBe('1 minute ago');
  });

  it('rounds down to the largest whole unit', () => {
    expect(relativeTime(before(119_000), now)).toBe('1 minute ago');
    expect(relativeTime(before(5 * 60_000), now)).toBe('5 minutes ago');
    expect(relativeTime(before(59 * 60_000 + 59_000), now)).toBe('59 minutes ago');
    expect(relativeTime(before(60 * 60_000), now)).toBe('1 hour ago');
    expect(relativeTime(before(2 * 3_600_000), now)).toBe('2 hours ago');
    expect(relativeTime(before(3 * 86_400_000), now)).toBe('3 days ago');
    expect(relativeTime('2022-03-01T12:00:00Z', now)).toBe('2 years ago');
  });

  it("treats slight clock skew as 'just now' and later times as future", () => {
    expect(relativeTime(new Date(now.getTime() + 30_000), now)).toBe('just now');
    expect(relativeTime(new Date(now.getTime() + 5 * 60_000), now)).toBe('in 5 minutes');
  });

  it('accepts ISO strings and rejects invalid dates', () => {
    expect(relativeTime('2024-03-10T11:55:00Z', now)).toBe('5 minutes ago');
    expect(() => relativeTime('a while ago', now)).toThrow(RangeError);
  });
});

describe('one date format, the reader’s locale (issue 42 item 8)', () => {
  it('formatDay: medium style in the given locale; a date without a time is that calendar day', () => {
    expect(formatDay('2026-12-04', 'en-US')).toBe('Dec 4, 2026');
    expect(formatDay('2026-12-04', 'en-GB')).toBe('4 Dec 2026');
    expect(formatDay(new Date(2026, 10, 9, 23, 30), 'en-US')).toBe('Nov 9, 2026');
  });

  it('formatDayTime and formatMonth follow the same style', () => {
    expect(formatDayTime(new Date(2026, 11, 4, 9, 30), 'en-US')).toBe('Dec 4, 2026, 9:30 AM');
    expect(formatMonth('2026-12-15', 'en-US')).toBe('Dec 2026');
  });
});

describe('weeks and ranges for charts and invoices (issue 42 items 6 and 10)', () => {
  it('formatWeekOf names a week by its first day, without the year, in the locale', () => {
    expect(formatWeekOf('2026-11-09', 'en-GB')).toBe('Week of 9 Nov');
    expect(formatWeekOf('2026-11-09', 'en-US')).toBe('Week of Nov 9');
    expect(formatShortDay('2026-12-04', 'en-GB')).toBe('4 Dec');
  });

  it('formatDayRange gives one range, whichever end comes first, and one day when equal', () => {
    // ICU versions differ in the (thin) spaces around the dash: compare without spaces.
    const bare = (s: string) => s.replace(/\s+/g, '');
    expect(bare(formatDayRange('2026-11-26', '2026-11-30', 'en-GB'))).toBe('26–30Nov2026');
    expect(bare(formatDayRange('2026-11-30', '2026-11-26', 'en-GB'))).toBe('26–30Nov2026');
    expect(bare(formatDayRange('2026-11-26', '2026-12-02', 'en-US'))).toBe('Nov26–Dec2,2026');
    expect(formatDayRange('2026-11-26', '2026-11-26', 'en-GB')).toBe('26 Nov 2026');
  });
});
