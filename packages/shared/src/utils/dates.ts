// Date helper contract (SPEC.md §3) and relative time (SPEC.md §9), built on date-fns.
// Everything that depends on the clock takes an optional `now` so callers and tests can pin it.
// One subpath per function: the package index makes Node load every date-fns module at start-up (~2 s).
import { differenceInCalendarDays } from 'date-fns/differenceInCalendarDays';
import { differenceInSeconds } from 'date-fns/differenceInSeconds';
import { format } from 'date-fns/format';
import { formatDistanceStrict } from 'date-fns/formatDistanceStrict';
import { getUnixTime } from 'date-fns/getUnixTime';
import { isValid } from 'date-fns/isValid';
import { parseISO } from 'date-fns/parseISO';
import { subDays } from 'date-fns/subDays';

/** A `Date`, epoch milliseconds, or an ISO 8601 string (a string without a zone is local time). */
export type DateInput = Date | number | string;

/** year-month-day, the default pattern of the spec ("today's date (default pattern year-month-day)"). */
export const DATE_PATTERN = 'yyyy-MM-dd';

/** SPEC.md §9: "Relative time: ... update interval 30 s." */
export const RELATIVE_TIME_UPDATE_INTERVAL_MS = 30_000;

/** SPEC.md §9: "'just now' under 60 s". */
const JUST_NOW_LIMIT_SECONDS = 60;

/** Parses the input; throws a RangeError rather than letting "Invalid Date" leak into the UI. */
export function toDate(input: DateInput): Date {
  const date = typeof input === 'string' ? parseISO(input) : new Date(input);
  if (!isValid(date)) throw new RangeError(`Invalid date: ${String(input)}`);
  return date;
}

/**
 * Re-expresses the UTC wall-clock time as a local Date so date-fns `format` prints UTC fields.
 * Zone tokens (x, X, z) still print the local zone, and a UTC time that falls in a local
 * daylight-saving gap moves by the gap; both are outside what the app formats.
 */
function utcWallClock(date: Date): Date {
  const local = new Date(0);
  local.setFullYear(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate());
  local.setHours(date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds());
  return local;
}

/** Formats a date with a date-fns pattern, in local time or, with `utc`, in UTC. */
export function formatDate(
  input: DateInput,
  pattern: string = DATE_PATTERN,
  options: { utc?: boolean } = {},
): string {
  const date = toDate(input);
  return format(options.utc === true ? utcWallClock(date) : date, pattern);
}

/** Today's date, year-month-day unless another pattern is given. */
export function today(pattern: string = DATE_PATTERN, now: Date = new Date()): string {
  return format(now, pattern);
}

/**
 * Whole calendar days from `from` to `to` (local time), negative when `to` is earlier.
 * Calendar days rather than 24-hour periods, so a daylight-saving change does not lose a day.
 */
export function daysBetween(from: DateInput, to: DateInput): number {
  return differenceInCalendarDays(toDate(to), toDate(from));
}

/** 'Today', 'Yesterday', otherwise month and day such as 'March 5' (no year, as the spec says). */
export function relativeDayLabel(input: DateInput, now: Date = new Date()): string {
  const date = toDate(input);
  const days = differenceInCalendarDays(now, date);
  if (days === 0) return 'Today';
  if (days === 1) return 'Yesterday';
  return format(date, 'MMMM d');
}

/** Unix time in whole seconds (SPEC.md §9: report dates are sent as epoch seconds). */
export function toUnixSeconds(input: DateInput): number {
  return getUnixTime(toDate(input));
}

/** The local date `days` days before `now`, as year-month-day. */
export function daysAgo(days: number, now: Date = new Date()): string {
  return format(subDays(now, days), DATE_PATTERN);
}

/** Subtracts calendar days (keeps the local time of day across daylight-saving changes). */
export function subtractDays(input: DateInput, days: number): Date {
  return subDays(toDate(input), days);
}

/** Whole seconds from `from` to `to`, negative when `to` is earlier. */
export function durationInSeconds(from: DateInput, to: DateInput): number {
  return differenceInSeconds(toDate(to), toDate(from));
}

/**
 * A short duration label from seconds: '45s' under a minute, '5m 3s' under an hour, then
 * '2h 5m' (seconds dropped; hours are not rolled into days, so 26 hours is '26h 0m').
 * Fractions of a second are dropped; negative or non-finite input throws a RangeError.
 */
export function formatDuration(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds) || totalSeconds < 0) {
    throw new RangeError(`Invalid duration: ${String(totalSeconds)}`);
  }
  const whole = Math.floor(totalSeconds);
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const seconds = whole % 60;
  if (hours > 0) return `${hours}h ${minutes}m`;
  if (minutes > 0) return `${minutes}m ${seconds}s`;
  return `${seconds}s`;
}

/**
 * 'just now' when less than 60 s apart (either way, to absorb clock skew), otherwise a date-fns
 * strict distance rounded down: '1 minute ago' from exactly 60 s, '5 minutes ago', '2 hours ago',
 * '3 days ago', '1 month ago', '2 years ago'; a later date reads 'in 5 minutes'.
 */
export function relativeTime(input: DateInput, now: Date = new Date()): string {
  const date = toDate(input);
  if (Math.abs(differenceInSeconds(now, date)) < JUST_NOW_LIMIT_SECONDS) return 'just now';
  return formatDistanceStrict(date, now, { addSuffix: true, roundingMethod: 'floor' });
}

/**
 * The one way a date is shown (issue 42 item 8): the reader's locale, medium style — "Dec 4, 2026" in
 * en-US, "4 Dec 2026" in en-GB. A date without a time ("2026-12-04") is that calendar day wherever the
 * reader is. `locale` defaults to the runtime's (the browser's language in the web app).
 */
export function formatDay(input: DateInput, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' }).format(
    toDate(input),
  );
}

/** A date with its time, as `formatDay` shows the date: "Dec 4, 2026, 9:30 AM" in en-US. */
export function formatDayTime(input: DateInput, locale?: string): string {
  return new Intl.DateTimeFormat(locale, {
    day: 'numeric',
    month: 'short',
    year: 'numeric',
    hour: 'numeric',
    minute: '2-digit',
  }).format(toDate(input));
}

/** A month, as `formatDay` shows the date: "Dec 2026". */
export function formatMonth(input: DateInput, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { month: 'short', year: 'numeric' }).format(toDate(input));
}

/** A day without its year, as `formatDay` shows it: "Nov 9" in en-US, "9 Nov" in en-GB (chart axes). */
export function formatShortDay(input: DateInput, locale?: string): string {
  return new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short' }).format(toDate(input));
}

/** A week named by its first day, for chart tooltips (issue 42 item 10): "Week of 9 Nov" in en-GB. */
export function formatWeekOf(input: DateInput, locale?: string): string {
  return `Week of ${formatShortDay(input, locale)}`;
}

/**
 * The days from `from` to `to` as one range in the reader's locale (issue 42 item 6: what an invoice
 * covers): "26–30 Nov 2026" in en-GB, "Nov 26 – Dec 2, 2026" in en-US; one day when they are the same.
 */
export function formatDayRange(from: DateInput, to: DateInput, locale?: string): string {
  const f = new Intl.DateTimeFormat(locale, { day: 'numeric', month: 'short', year: 'numeric' });
  const a = toDate(from);
  const b = toDate(to);
  return a.getTime() <= b.getTime() ? f.formatRange(a, b) : f.formatRange(b, a);
}
