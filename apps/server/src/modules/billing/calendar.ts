/**
 * Calendar arithmetic in a client's time zone (the month-end charge and the usage report read the
 * client's calendar, not the server's). Dates are `YYYY-MM-DD` strings of that zone.
 */

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(timeZone: string): Intl.DateTimeFormat {
  let f = formatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, f);
  }
  return f;
}

/** The calendar date of an instant in the zone. */
export function localDate(at: Date, timeZone: string): string {
  const parts = Object.fromEntries(
    formatter(timeZone)
      .formatToParts(at)
      .map((p) => [p.type, p.value]),
  );
  return `${parts.year}-${parts.month}-${parts.day}`;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** Days in a month (month 1–12). */
export function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** The billing month (`YYYY-MM`) an instant falls in, in the zone. */
export function monthOf(at: Date, timeZone: string): string {
  return localDate(at, timeZone).slice(0, 7);
}

/** First and last date of the month `YYYY-MM`. */
export function monthBounds(month: string): { start: string; end: string; days: number } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const days = daysInMonth(y, m);
  return { start: `${month}-01`, end: `${month}-${pad(days)}`, days };
}

/** Whether the instant falls on the last day of its month in the zone. */
export function isLastDayOfMonth(at: Date, timeZone: string): boolean {
  const date = localDate(at, timeZone);
  return date === monthBounds(date.slice(0, 7)).end;
}

/** `YYYY-MM-DD` plus n days. */
export function addDays(date: string, n: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + n);
  return d.toISOString().slice(0, 10);
}

/** Every date from `from` to `to`, inclusive. */
export function datesBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let d = from; d <= to; d = addDays(d, 1)) out.push(d);
  return out;
}

/**
 * The instant a local date starts in the zone (midnight there). Found by correcting a UTC guess by
 * the zone's offset at that moment, twice, which settles across daylight-saving changes.
 */
export function startOfLocalDate(date: string, timeZone: string): Date {
  const target = Date.parse(`${date}T00:00:00Z`);
  let guess = target;
  for (let i = 0; i < 3; i++) {
    const shown = localDateTimeMs(new Date(guess), timeZone);
    guess += target - shown;
  }
  return new Date(guess);
}

const fullFormatters = new Map<string, Intl.DateTimeFormat>();
function localDateTimeMs(at: Date, timeZone: string): number {
  let f = fullFormatters.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-CA', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    fullFormatters.set(timeZone, f);
  }
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  return Date.UTC(
    Number(p.year),
    Number(p.month) - 1,
    Number(p.day),
    Number(p.hour),
    Number(p.minute),
    Number(p.second),
  );
}
