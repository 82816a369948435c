import { MantineProvider } from '@mantine/core';
import { act, fireEvent, render, screen, within } from '@testing-library/react';
import { useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { CALENDAR } from '../../config/widgets.ts';
import { LruCache, calendarPage, monthCache, monthWeeks, pageCache } from './calendar-cache.ts';
import { Calendar, DatePicker, parseTyped, parseTypedRange } from './date-picker.tsx';
import type { DateRange, DateValue } from './date-picker.tsx';
import { swipeDirection } from './swipe.ts';
import { firstDayOfWeek } from './week-start.ts';

const wrap = (ui: React.ReactElement) => render(<MantineProvider>{ui}</MantineProvider>);

afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('the calendar constants (SPEC.md §9)', () => {
  it('are the specified numbers, in one place', () => {
    expect(CALENDAR).toEqual({
      daysInWeek: 7,
      pagesCache: 5,
      monthsCache: 12,
      swipeMaxMs: 300,
      swipeMinHorizontalPx: 60,
      swipeMaxVerticalPx: 80,
      inputDebounceMs: 1000,
      popoverHideDelayMs: 110,
    });
  });

  it('takes the week start from the locale: en-GB on Monday, en-US on Sunday', () => {
    expect(firstDayOfWeek('en-GB')).toBe(1);
    expect(firstDayOfWeek('fr-FR')).toBe(1);
    expect(firstDayOfWeek('en-US')).toBe(0);
    expect(firstDayOfWeek('not a locale!')).toBe(1);
  });

  it('lays a month out in weeks of 7 days from the first weekday', () => {
    // November 2026 starts on a Sunday.
    const gb = monthWeeks('2026-11-10', 1);
    expect(gb[0]).toEqual([
      '2026-10-26',
      '2026-10-27',
      '2026-10-28',
      '2026-10-29',
      '2026-10-30',
      '2026-10-31',
      '2026-11-01',
    ]);
    expect(gb.every((w) => w.length === 7)).toBe(true);
    expect(monthWeeks('2026-11-10', 0)[0]?.[0]).toBe('2026-11-01');
    expect(calendarPage('weekly', '2026-11-25', 1).days).toHaveLength(7);
    expect(calendarPage('weekly', '2026-11-25', 1).days[0]).toBe('2026-11-23');
    expect(calendarPage('daily', '2026-11-25', 1).days).toEqual(['2026-11-25']);
  });

  it('keeps 12 months and 5 pages computed, dropping the least recently used', () => {
    for (let m = 1; m <= 13; m++) monthWeeks(`2030-${String(m).padStart(2, '0')}-01`, 1);
    expect(monthCache.keys()).toHaveLength(12);
    expect(monthCache.has('2030-01/1')).toBe(false);
    expect(monthCache.has('2030-13/1')).toBe(false);
    expect(monthCache.has('2030-12/1')).toBe(true);
    for (let d = 1; d <= 6; d++) calendarPage('daily', `2031-01-0${d}`, 1);
    expect(pageCache.keys()).toHaveLength(5);
    expect(pageCache.has('daily/2031-01-01/1')).toBe(false);
    const lru = new LruCache<number>(2);
    lru.get('a', () => 1);
    lru.get('b', () => 2);
    lru.get('a', () => 9); // read: a is the newest now
    lru.get('c', () => 3);
    expect(lru.keys()).toEqual(['a', 'c']);
  });
});

describe('swipe (SPEC.md §9: at most 300 ms, at least 60 px across, at most 80 px vertical)', () => {
  const from = { x: 200, y: 100, t: 0 };
  it('reads a quick, long enough, flat swipe', () => {
    expect(swipeDirection(from, { x: 130, y: 110, t: 250 })).toBe('next');
    expect(swipeDirection(from, { x: 270, y: 100, t: 250 })).toBe('previous');
    expect(swipeDirection(from, { x: 140, y: 180, t: 300 })).toBe('next');
  });
  it('ignores a slow, short or steep one', () => {
    expect(swipeDirection(from, { x: 130, y: 100, t: 400 })).toBeNull();
    expect(swipeDirection(from, { x: 145, y: 100, t: 100 })).toBeNull();
    expect(swipeDirection(from, { x: 100, y: 181, t: 100 })).toBeNull();
  });

  function swipeOn(el: Element, dx: number, ms: number) {
    let now = 1000;
    vi.spyOn(performance, 'now').mockImplementation(() => now);
    fireEvent.touchStart(el, { changedTouches: [{ clientX: 200, clientY: 50 }] });
    now += ms;
    fireEvent.touchEnd(el, { changedTouches: [{ clientX: 200 + dx, clientY: 55 }] });
  }

  it('a 250 ms, 70 px swipe changes the month; a 400 ms one does not', () => {
    wrap(<Calendar type="single" view="monthly" locale="en-GB" value="2026-11-25" onChange={() => {}} />);
    const calendar = screen.getByTestId('calendar');
    expect(within(calendar).getByText('November 2026')).toBeInTheDocument();
    swipeOn(calendar, -70, 250);
    expect(within(calendar).getByText('December 2026')).toBeInTheDocument();
    swipeOn(calendar, 70, 400);
    expect(within(calendar).getByText('December 2026')).toBeInTheDocument();
    swipeOn(calendar, 70, 250);
    expect(within(calendar).getByText('November 2026')).toBeInTheDocument();
  });
});

describe('the calendar views', () => {
  const weekdays = () =>
    screen
      .getAllByRole('columnheader')
      .map((th) => th.textContent)
      .slice(0, 7);

  it('monthly: 7 columns from Monday in en-GB, from Sunday in en-US', () => {
    const { unmount } = wrap(
      <Calendar type="single" view="monthly" locale="en-GB" value="2026-11-25" onChange={() => {}} />,
    );
    expect(weekdays()).toEqual(['Mo', 'Tu', 'We', 'Th', 'Fr', 'Sa', 'Su']);
    unmount();
    wrap(<Calendar type="single" view="monthly" locale="en-US" value="2026-11-25" onChange={() => {}} />);
    expect(weekdays()[0]).toBe('Su');
  });

  it('weekly: the 7 days of the week from the locale’s first day, paged a week at a time', () => {
    const onChange = vi.fn();
    wrap(<Calendar type="single" view="weekly" locale="en-GB" value="2026-11-25" onChange={onChange} />);
    const calendar = screen.getByTestId('calendar');
    expect(within(calendar).getByText('23 Nov – 29 Nov 2026')).toBeInTheDocument();
    expect(within(calendar).getAllByRole('button', { name: /day \d+ November 2026/ })).toHaveLength(7);
    fireEvent.click(within(calendar).getByRole('button', { name: 'Next week' }));
    expect(within(calendar).getByText('30 Nov – 6 Dec 2026')).toBeInTheDocument();
  });

  it('daily: one day', () => {
    wrap(<Calendar type="single" view="daily" locale="en-GB" value="2026-11-25" onChange={() => {}} />);
    expect(screen.getByText('Wednesday 25 November 2026')).toBeInTheDocument();
    fireEvent.click(screen.getByRole('button', { name: 'Next day' }));
    expect(screen.getByText('Thursday 26 November 2026')).toBeInTheDocument();
  });

  it('weekly range: the first click starts it, the second ends it', () => {
    const onChange = vi.fn();
    wrap(<Calendar type="range" view="weekly" locale="en-GB" value={[null, null]} onChange={onChange} />);
    const dayButtons = within(screen.getByTestId('calendar')).getAllByRole('button', {
      name: /day \d+ \w+ \d{4}/,
    });
    expect(dayButtons).toHaveLength(7);
    fireEvent.click(dayButtons[4] as HTMLElement);
    fireEvent.click(dayButtons[1] as HTMLElement);
    expect(onChange).toHaveBeenCalledTimes(2);
    const first = onChange.mock.calls[0]?.[0] as DateRange;
    const [start, end] = onChange.mock.calls[1]?.[0] as DateRange;
    expect(first[1]).toBeNull();
    expect(end).toBe(first[0]);
    expect(start! < end!).toBe(true);
  });
});

describe('the date input', () => {
  function Controlled({
    onChange,
    mode = 'date',
  }: {
    onChange: (v: DateValue) => void;
    mode?: 'date' | 'datetime' | 'time';
  }) {
    const [value, setValue] = useState<DateValue>(null);
    return (
      <DatePicker
        label="Day"
        mode={mode}
        locale="en-GB"
        value={value}
        onChange={(v) => {
          setValue(v);
          onChange(v);
        }}
      />
    );
  }

  it('reads typed text in the date, datetime and time formats', () => {
    expect(parseTyped('2026-11-05', 'date')).toBe('2026-11-05');
    expect(parseTyped('5 Nov 2026', 'date')).toBe('2026-11-05');
    expect(parseTyped('05/11/2026', 'date')).toBe('2026-11-05');
    expect(parseTyped('31 Feb 2026', 'date')).toBeUndefined();
    expect(parseTyped('5 Nov 2026 14:30', 'datetime')).toBe('2026-11-05 14:30');
    expect(parseTyped('9:05', 'time')).toBe('09:05');
    expect(parseTyped('25:00', 'time')).toBeUndefined();
    expect(parseTypedRange('1 Nov 2026 – 30 Nov 2026')).toEqual(['2026-11-01', '2026-11-30']);
    expect(parseTypedRange('2026-11-30 to 2026-11-01')).toBeUndefined();
  });

  it('a typed date fires once, 1000 ms after typing pauses', () => {
    vi.useFakeTimers();
    const onChange = vi.fn();
    wrap(<Controlled onChange={onChange} />);
    const input = screen.getByRole('textbox', { name: 'Day' });
    for (const text of ['5', '5 N', '5 Nov', '5 Nov 20', '5 Nov 2026']) {
      fireEvent.change(input, { target: { value: text } });
      act(() => vi.advanceTimersByTime(300));
    }
    expect(onChange).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(699));
    expect(onChange).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(1));
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(onChange).toHaveBeenCalledWith('2026-11-05');
    act(() => vi.advanceTimersByTime(5000));
    expect(onChange).toHaveBeenCalledTimes(1);
    expect(input).toHaveValue('5 Nov 2026');
  });

  it('says what to type when the text is no date, and keeps the value', () => {
    vi.useFakeTimers();
    const onChange = vi.fn();
    wrap(<Controlled onChange={onChange} />);
    fireEvent.change(screen.getByRole('textbox', { name: 'Day' }), { target: { value: 'someday' } });
    act(() => vi.advanceTimersByTime(1000));
    expect(onChange).not.toHaveBeenCalled();
    expect(screen.getByText('Type a date, e.g. 1 Nov 2026')).toBeInTheDocument();
  });

  it('the calendar popover hides 110 ms after focus leaves it', () => {
    vi.useFakeTimers();
    wrap(
      <>
        <Controlled onChange={() => {}} />
        <button type="button">elsewhere</button>
      </>,
    );
    const toggle = screen.getByRole('button', { name: 'Open the calendar: Day' });
    fireEvent.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    const elsewhere = screen.getByRole('button', { name: 'elsewhere' });
    fireEvent.blur(toggle, { relatedTarget: elsewhere });
    act(() => vi.advanceTimersByTime(109));
    expect(screen.getByRole('button', { name: /the calendar: Day/ })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
    act(() => vi.advanceTimersByTime(1));
    expect(screen.getByRole('button', { name: 'Open the calendar: Day' })).toHaveAttribute(
      'aria-expanded',
      'false',
    );
  });

  it('picking a day in the calendar sets the value', async () => {
    const onChange = vi.fn();
    render(
      <MantineProvider>
        <DatePicker label="Day" locale="en-GB" value="2026-11-25" onChange={onChange} />
      </MantineProvider>,
    );
    fireEvent.click(screen.getByRole('button', { name: 'Open the calendar: Day' }));
    fireEvent.click(await screen.findByRole('button', { name: '12 November 2026' }));
    expect(onChange).toHaveBeenCalledWith('2026-11-12');
  });

  it('datetime mode has a time beside the calendar; time mode is a time field', async () => {
    const { unmount } = wrap(
      <DatePicker label="When" mode="datetime" locale="en-GB" value="2026-11-25 09:30" onChange={() => {}} />,
    );
    expect(screen.getByRole('textbox', { name: 'When' })).toHaveValue('25 Nov 2026 09:30');
    fireEvent.click(screen.getByRole('button', { name: 'Open the calendar: When' }));
    expect(await screen.findByLabelText('Time')).toHaveValue('09:30');
    unmount();
    wrap(<DatePicker label="At" mode="time" value="14:00" onChange={() => {}} />);
    expect(screen.getByLabelText('At')).toHaveValue('14:00');
  });
});
