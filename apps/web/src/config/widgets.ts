/**
 * The business constants of the shared widgets (SPEC.md §9), in one place. The theme
 * (app/providers.tsx) and the shared components (components/date-picker.tsx,
 * components/multi-select.tsx) read them from here; nothing else repeats the numbers.
 */

/** Calendar and date picker (SPEC.md §5, §9). */
export const CALENDAR = {
  /** A week has 7 days; the first one comes from the locale (en-GB: Monday, en-US: Sunday). */
  daysInWeek: 7,
  /** Calendar pages (a week or a month laid out) kept computed. */
  pagesCache: 5,
  /** Months (their days and weeks) kept computed. */
  monthsCache: 12,
  /** A touch swipe changes the month when it lasts at most this long… */
  swipeMaxMs: 300,
  /** …goes at least this far across… */
  swipeMinHorizontalPx: 60,
  /** …and at most this far up or down. */
  swipeMaxVerticalPx: 80,
  /** A typed date is read once typing has paused this long. */
  inputDebounceMs: 1000,
  /** The calendar popover closes this long after focus or the pointer left it. */
  popoverHideDelayMs: 110,
} as const;

/** SPEC.md §5: "Date picker modes: date, datetime, time; views: daily, weekly, monthly." */
export const DATE_PICKER_MODES = ['date', 'datetime', 'time'] as const;
export const CALENDAR_VIEWS = ['daily', 'weekly', 'monthly'] as const;

/** Multiselect (SPEC.md §9). */
export const MULTISELECT = {
  /** At most this many options are rendered; the search narrows the rest down. */
  optionsLimit: 1000,
  maxHeightPx: 300,
  optionHeightPx: 40,
  placeholder: 'Select option',
  emptyText: 'List is empty.',
  noMatchText: 'No elements found. Consider changing the search query.',
} as const;

/** Menus and tooltips (SPEC.md §9), applied as theme defaults. */
export const MENU_HIDE_DELAY_MS = 400;
export const TOOLTIP_SHOW_DELAY_MS = 200;
export const TOOLTIP_DISTANCE_PX = 5;
