import dayjs from 'dayjs';
import { CALENDAR } from '../../config/widgets.ts';

/** A small least-recently-used cache: reading a key makes it the newest; past `size` the oldest goes. */
export class LruCache<V> {
  private readonly map = new Map<string, V>();
  readonly size: number;
  constructor(size: number) {
    this.size = size;
  }
  get(key: string, make: () => V): V {
    const hit = this.map.get(key);
    if (hit !== undefined) {
      this.map.delete(key);
      this.map.set(key, hit);
      return hit;
    }
    const value = make();
    this.map.set(key, value);
    if (this.map.size > this.size) this.map.delete(this.map.keys().next().value as string);
    return value;
  }
  has(key: string): boolean {
    return this.map.has(key);
  }
  keys(): string[] {
    return [...this.map.keys()];
  }
}

/** A month laid out in weeks of CALENDAR.daysInWeek days (YYYY-MM-DD), from the given first weekday. */
export type MonthWeeks = string[][];
/** What a daily, weekly or monthly view shows: its days and its heading. */
export type CalendarPage = { days: string[]; title: string };

/** Months kept computed (SPEC.md §9: months cache 12) and pages (pages cache 5), per first weekday. */
export const monthCache = new LruCache<MonthWeeks>(CALENDAR.monthsCache);
export const pageCache = new LruCache<CalendarPage>(CALENDAR.pagesCache);

export function monthWeeks(month: string, firstDay: number): MonthWeeks {
  const start = dayjs(month).startOf('month');
  return monthCache.get(`${start.format('YYYY-MM')}/${firstDay}`, () => {
    const back = (start.day() - firstDay + CALENDAR.daysInWeek) % CALENDAR.daysInWeek;
    let d = start.subtract(back, 'day');
    const weeks: MonthWeeks = [];
    while (weeks.length === 0 || d.month() === start.month()) {
      const week: string[] = [];
      for (let i = 0; i < CALENDAR.daysInWeek; i++) {
        week.push(d.format('YYYY-MM-DD'));
        d = d.add(1, 'day');
      }
      weeks.push(week);
    }
    return weeks;
  });
}

/** The first day of the week holding `date`. */
export function weekStart(date: string, firstDay: number): string {
  const day = dayjs(date).format('YYYY-MM-DD');
  const week = monthWeeks(day, firstDay).find((w) => w.includes(day));
  return week?.[0] ?? day;
}

export function calendarPage(
  view: 'daily' | 'weekly' | 'monthly',
  date: string,
  firstDay: number,
): CalendarPage {
  const anchor =
    view === 'weekly'
      ? weekStart(date, firstDay)
      : view === 'monthly'
        ? dayjs(date).format('YYYY-MM-01')
        : date;
  return pageCache.get(`${view}/${anchor}/${firstDay}`, () => {
    if (view === 'daily') return { days: [anchor], title: dayjs(anchor).format('dddd D MMMM YYYY') };
    if (view === 'weekly') {
      const days = Array.from({ length: CALENDAR.daysInWeek }, (_, i) =>
        dayjs(anchor).add(i, 'day').format('YYYY-MM-DD'),
      );
      return {
        days,
        title: `${dayjs(days[0]).format('D MMM')} – ${dayjs(days[days.length - 1]).format('D MMM YYYY')}`,
      };
    }
    return { days: monthWeeks(anchor, firstDay).flat(), title: dayjs(anchor).format('MMMM YYYY') };
  });
}
