import '@mantine/dates/styles.css';
import { ActionIcon, Box, Group, Popover, Stack, Text, TextInput } from '@mantine/core';
import type { BoxProps } from '@mantine/core';
import { DatesProvider, DatePicker as MantineDatePicker, MiniCalendar, TimeInput } from '@mantine/dates';
import type { DayOfWeek } from '@mantine/dates';
import { IconCalendar } from '@tabler/icons-react';
import dayjs from 'dayjs';
import customParseFormat from 'dayjs/plugin/customParseFormat';
import { useEffect, useId, useRef, useState } from 'react';
import type { FocusEvent, ReactNode } from 'react';
import { CALENDAR } from '../../config/widgets.ts';
import { calendarPage, weekStart } from './calendar-cache.ts';
import { useSwipe } from './swipe.ts';
import { calendarLocale, firstDayOfWeek } from './week-start.ts';

dayjs.extend(customParseFormat);

export type DatePickerMode = 'date' | 'datetime' | 'time';
export type CalendarView = 'daily' | 'weekly' | 'monthly';
/** 'YYYY-MM-DD' (date), 'YYYY-MM-DD HH:mm' (datetime) or 'HH:mm' (time). */
export type DateValue = string | null;
export type DateRange = [string | null, string | null];

const DAY = 'YYYY-MM-DD';
const SHOWN = { date: 'D MMM YYYY', datetime: 'D MMM YYYY HH:mm', time: 'HH:mm' } as const;
const STORED = { date: DAY, datetime: 'YYYY-MM-DD HH:mm', time: 'HH:mm' } as const;
/** What a typed date may look like (en-GB day first, ISO, or as shown). */
const TYPED = {
  date: [DAY, 'D MMM YYYY', 'D MMMM YYYY', 'DD/MM/YYYY', 'D/M/YYYY'],
  datetime: [
    'YYYY-MM-DD HH:mm',
    'D MMM YYYY HH:mm',
    'D MMMM YYYY HH:mm',
    'DD/MM/YYYY HH:mm',
    'YYYY-MM-DDTHH:mm',
  ],
  time: ['HH:mm', 'H:mm'],
} as const;

/** A typed date read in the mode's formats (strictly); undefined when it is not a date. */
export function parseTyped(text: string, mode: DatePickerMode): string | undefined {
  const t = text.trim();
  for (const f of TYPED[mode]) {
    const d = dayjs(t, f, true);
    if (d.isValid()) return d.format(STORED[mode]);
  }
  return undefined;
}

/** A typed range: two dates separated by a dash or 'to'; an empty text clears it. */
export function parseTypedRange(text: string): DateRange | undefined {
  if (text.trim() === '') return [null, null];
  const parts = text.split(/\s+(?:–|-|—|to)\s+/);
  if (parts.length !== 2) return undefined;
  const [a, b] = parts.map((p) => parseTyped(p, 'date'));
  if (!a || !b || b < a) return undefined;
  return [a, b];
}

const show = (value: DateValue, mode: DatePickerMode) =>
  value ? dayjs(value, STORED[mode]).format(SHOWN[mode]) : '';
const showRange = ([a, b]: DateRange) =>
  a && b ? `${show(a, 'date')} – ${show(b, 'date')}` : a ? show(a, 'date') : '';

type CommonProps = {
  label: string;
  description?: ReactNode;
  /** How the calendar shows days: one day, one week or one month (SPEC.md §5). */
  view?: CalendarView;
  minDate?: string;
  maxDate?: string;
  /** The locale the week start comes from; the browser's by default. */
  locale?: string;
  w?: BoxProps['w'];
};
export type DatePickerProps = CommonProps &
  (
    | { type?: 'single'; mode?: DatePickerMode; value: DateValue; onChange: (value: DateValue) => void }
    | { type: 'range'; mode?: 'date'; value: DateRange; onChange: (value: DateRange) => void }
  );

/**
 * The one date input of the app (SPEC.md §5, §9): a typed field read 1000 ms after typing pauses,
 * and a calendar in a popover that hides 110 ms after focus leaves it. Modes date, datetime and time;
 * a single date or a range; the calendar shows a month, a week or a day, starts its weeks on the
 * locale's first day and pages on a swipe. The constants are in config/widgets.ts.
 */
/**
 * The week start from the locale, for this picker's calendars: here rather than at the app's root, so
 * the dates package is not part of every page's first download (issue 19).
 */
export function DatePicker(props: DatePickerProps) {
  return (
    <DatesProvider settings={{ firstDayOfWeek: firstDayOfWeek(calendarLocale()) }}>
      <DatePickerBody {...props} />
    </DatesProvider>
  );
}

function DatePickerBody(props: DatePickerProps) {
  const mode: DatePickerMode = props.mode ?? 'date';
  const isRange = props.type === 'range';
  const shown = isRange ? showRange(props.value) : show(props.value, mode);
  const [text, setText] = useState(shown);
  const [opened, setOpened] = useState(false);
  const typing = useRef<ReturnType<typeof setTimeout> | null>(null);
  const hiding = useRef<ReturnType<typeof setTimeout> | null>(null);
  const [invalid, setInvalid] = useState(false);
  const dropdownId = useId();

  // A value set from outside (or picked) shows in the field.
  const [lastShown, setLastShown] = useState(shown);
  if (shown !== lastShown) {
    setLastShown(shown);
    setText(shown);
    setInvalid(false);
  }
  useEffect(
    () => () => {
      if (typing.current) clearTimeout(typing.current);
      if (hiding.current) clearTimeout(hiding.current);
    },
    [],
  );

  const commitTyped = (next: string) => {
    if (isRange) {
      const range = parseTypedRange(next);
      setInvalid(range === undefined);
      if (range) props.onChange(range);
    } else {
      const value = next.trim() === '' ? null : parseTyped(next, mode);
      setInvalid(value === undefined);
      if (value !== undefined) props.onChange(value);
    }
  };
  const onType = (next: string) => {
    setText(next);
    if (typing.current) clearTimeout(typing.current);
    typing.current = setTimeout(() => {
      typing.current = null;
      commitTyped(next);
    }, CALENDAR.inputDebounceMs);
  };

  const keepOpen = () => {
    if (hiding.current) clearTimeout(hiding.current);
    hiding.current = null;
  };
  const hideSoon = () => {
    keepOpen();
    hiding.current = setTimeout(() => {
      hiding.current = null;
      setOpened(false);
    }, CALENDAR.popoverHideDelayMs);
  };
  const onBlur = (e: FocusEvent) => {
    const to = e.relatedTarget as Node | null;
    const dropdown = document.getElementById(dropdownId);
    if (to && (e.currentTarget.contains(to) || dropdown?.contains(to))) return;
    hideSoon();
  };

  const error = invalid
    ? isRange
      ? 'Type two dates, e.g. 1 Nov 2026 – 30 Nov 2026'
      : mode === 'time'
        ? 'Type a time, e.g. 09:30'
        : mode === 'datetime'
          ? 'Type a date and time, e.g. 1 Nov 2026 09:30'
          : 'Type a date, e.g. 1 Nov 2026'
    : undefined;

  if (mode === 'time') {
    return (
      <TimeInput
        label={props.label}
        description={props.description}
        value={text}
        onChange={(e) => onType(e.currentTarget.value)}
        error={error}
        w={props.w}
      />
    );
  }

  return (
    <Popover
      opened={opened}
      onDismiss={hideSoon}
      position="bottom-start"
      trapFocus={false}
      returnFocus
      // The roles are set on the calendar button and the dropdown below: the dropdown is named
      // after the field, not after everything the target box holds.
      withRoles={false}
      shadow="md"
      withinPortal
    >
      <Popover.Target>
        <Box onBlur={onBlur} onFocus={keepOpen} w={props.w}>
          <TextInput
            label={props.label}
            description={props.description}
            value={text}
            placeholder={
              isRange ? '1 Nov 2026 – 30 Nov 2026' : SHOWN[mode].replace('D MMM YYYY', '1 Nov 2026')
            }
            onChange={(e) => onType(e.currentTarget.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setOpened(false);
              if (e.key === 'Enter') {
                if (typing.current) clearTimeout(typing.current);
                typing.current = null;
                commitTyped(text);
              }
            }}
            error={error}
            autoComplete="off"
            rightSection={
              <ActionIcon
                variant="subtle"
                color="gray"
                aria-label={`${opened ? 'Close' : 'Open'} the calendar: ${props.label}`}
                aria-expanded={opened}
                aria-controls={opened ? dropdownId : undefined}
                onClick={() => (opened ? setOpened(false) : (keepOpen(), setOpened(true)))}
              >
                <IconCalendar size={16} />
              </ActionIcon>
            }
          />
        </Box>
      </Popover.Target>
      <Popover.Dropdown
        id={dropdownId}
        role="dialog"
        tabIndex={-1}
        aria-label={`${props.label}: calendar`}
        onBlur={onBlur}
        onFocus={keepOpen}
        onKeyDown={(e) => {
          if (e.key === 'Escape') setOpened(false);
        }}
      >
        {isRange ? (
          <Calendar
            type="range"
            view={props.view ?? 'monthly'}
            locale={props.locale}
            minDate={props.minDate}
            maxDate={props.maxDate}
            value={props.value}
            onChange={(v) => {
              props.onChange(v);
              if (v[0] && v[1]) hideSoon();
            }}
          />
        ) : (
          <SingleCalendar {...props} mode={mode} onPicked={hideSoon} />
        )}
      </Popover.Dropdown>
    </Popover>
  );
}

function SingleCalendar(
  props: CommonProps & {
    mode: 'date' | 'datetime';
    value: DateValue;
    onChange: (value: DateValue) => void;
    onPicked: () => void;
  },
) {
  const [day, time] = props.value ? props.value.split(' ') : [null, undefined];
  return (
    <Stack gap="xs">
      <Calendar
        type="single"
        view={props.view ?? 'monthly'}
        locale={props.locale}
        minDate={props.minDate}
        maxDate={props.maxDate}
        value={day ?? null}
        onChange={(d) => {
          if (props.mode === 'datetime') props.onChange(d ? `${d} ${time ?? '09:00'}` : null);
          else {
            props.onChange(d);
            props.onPicked();
          }
        }}
      />
      {props.mode === 'datetime' && (
        <TimeInput
          label="Time"
          value={time ?? ''}
          onChange={(e) => {
            const t = e.currentTarget.value;
            if (/^\d{2}:\d{2}$/.test(t)) props.onChange(`${day ?? dayjs().format(DAY)} ${t}`);
          }}
        />
      )}
    </Stack>
  );
}

export type CalendarProps = {
  view: CalendarView;
  locale?: string;
  minDate?: string;
  maxDate?: string;
} & (
  | { type: 'single'; value: string | null; onChange: (value: string | null) => void }
  | { type: 'range'; value: DateRange; onChange: (value: DateRange) => void }
);

/**
 * The calendar itself: a month (Mantine's date picker), a week or a day (its mini calendar), with
 * the locale's first weekday, 7 days a week, and a swipe to the next or previous page on touch.
 */
export function Calendar(props: CalendarProps) {
  const locale = props.locale ?? calendarLocale();
  const firstDay: DayOfWeek = firstDayOfWeek(locale);
  const selected = props.type === 'range' ? props.value[0] : props.value;
  const [shownDate, setShownDate] = useState(() => selected ?? dayjs().format(DAY));
  const unit = props.view === 'monthly' ? 'month' : props.view === 'weekly' ? 'week' : 'day';
  const page = (direction: 'next' | 'previous') =>
    setShownDate((d) =>
      dayjs(d)
        .add(direction === 'next' ? 1 : -1, unit)
        .format(DAY),
    );
  const swipe = useSwipe(page);
  const current = calendarPage(props.view, shownDate, firstDay);

  // A range picked in the week or day view: the first click starts it, the second ends it.
  const [pendingStart, setPendingStart] = useState<string | null>(null);
  const pickDay = (d: string) => {
    if (props.type === 'single') return props.onChange(d);
    if (!pendingStart) {
      setPendingStart(d);
      props.onChange([d, null]);
    } else {
      setPendingStart(null);
      props.onChange(d < pendingStart ? [d, pendingStart] : [pendingStart, d]);
    }
  };
  const inRange = (d: string) =>
    props.type === 'range' && props.value[0] && props.value[1]
      ? d >= props.value[0] && d <= props.value[1]
      : false;

  return (
    <Box
      {...swipe}
      data-testid="calendar"
      data-view={props.view}
      data-first-day={firstDay}
      style={{ touchAction: 'pan-y' }}
    >
      {props.view === 'monthly' ? (
        props.type === 'range' ? (
          <MantineDatePicker
            type="range"
            allowSingleDateInRange
            firstDayOfWeek={firstDay}
            date={shownDate}
            onDateChange={setShownDate}
            minDate={props.minDate}
            maxDate={props.maxDate}
            value={props.value}
            onChange={(v) => props.onChange([v[0], v[1]])}
            previousLabel="Previous month"
            nextLabel="Next month"
          />
        ) : (
          <MantineDatePicker
            firstDayOfWeek={firstDay}
            date={shownDate}
            onDateChange={setShownDate}
            minDate={props.minDate}
            maxDate={props.maxDate}
            value={props.value}
            onChange={(v) => props.onChange(v)}
            previousLabel="Previous month"
            nextLabel="Next month"
          />
        )
      ) : (
        <Stack gap={4}>
          <Group justify="center">
            <Text size="sm" fw={600} aria-live="polite">
              {current.title}
            </Text>
          </Group>
          <MiniCalendar
            numberOfDays={props.view === 'weekly' ? CALENDAR.daysInWeek : 1}
            date={props.view === 'weekly' ? weekStart(shownDate, firstDay) : shownDate}
            onNext={() => page('next')}
            onPrevious={() => page('previous')}
            minDate={props.minDate}
            maxDate={props.maxDate}
            value={props.type === 'single' ? props.value : null}
            onChange={pickDay}
            getDayProps={(d) => ({
              'aria-label': dayjs(d).format('dddd D MMMM YYYY'),
              'aria-pressed': props.type === 'single' ? d === props.value : inRange(d) || d === pendingStart,
              'data-in-range': inRange(d) || undefined,
              selected: inRange(d) || d === pendingStart || undefined,
            })}
            previousControlProps={{ 'aria-label': `Previous ${unit}` }}
            nextControlProps={{ 'aria-label': `Next ${unit}` }}
          />
        </Stack>
      )}
    </Box>
  );
}
