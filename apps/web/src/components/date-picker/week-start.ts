import type { DayOfWeek } from '@mantine/dates';

/**
 * The first day of the week from the locale (SPEC.md §9: "week start from locale (en-GB starts
 * Monday)"). Intl.Locale's week info gives it where the browser has it (1 = Monday … 7 = Sunday);
 * elsewhere (Firefox) the regions whose week starts on Sunday or Saturday are listed, and every other
 * region starts on Monday (ISO 8601). The result is Mantine's 0 = Sunday … 6 = Saturday.
 */
const SUNDAY_REGIONS = new Set(
  'AG AS AU BD BR BS BT BW BZ CA CN CO DM DO ET GT GU HK HN ID IL IN JM JP KE KH KR LA MH MM MO MT MX MZ NI NP PA PE PH PK PR PT PY SA SG SV TH TT TW UM US VE VI WS YE ZA ZW'.split(
    ' ',
  ),
);
const SATURDAY_REGIONS = new Set('AE AF BH DJ DZ EG IQ IR JO KW LY OM QA SD SY'.split(' '));

type WeekInfo = { firstDay: number };
type LocaleWithWeek = Intl.Locale & { weekInfo?: WeekInfo; getWeekInfo?: () => WeekInfo };

export function firstDayOfWeek(locale: string): DayOfWeek {
  let region: string | undefined;
  try {
    const l = new Intl.Locale(locale) as LocaleWithWeek;
    const info = l.getWeekInfo?.() ?? l.weekInfo;
    if (info && info.firstDay >= 1 && info.firstDay <= 7) return (info.firstDay % 7) as DayOfWeek;
    region = l.maximize().region;
  } catch {
    return 1;
  }
  if (region && SUNDAY_REGIONS.has(region)) return 0;
  if (region && SATURDAY_REGIONS.has(region)) return 6;
  return 1;
}

/** The browser's locale (en-GB, en-US…), 'en-GB' when there is none. */
export function calendarLocale(): string {
  return (typeof navigator !== 'undefined' && navigator.language) || 'en-GB';
}
