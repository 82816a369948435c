import { Box, SegmentedControl, useMatches } from '@mantine/core';
import { useMemo, useState } from 'react';
import type { ReactNode } from 'react';
import { DatePicker } from './date-picker/date-picker.tsx';
import type { DateRange } from './date-picker/date-picker.tsx';

/** A report range in epoch seconds (SPEC.md §9: "Report dates are sent as epoch seconds"), `to` exclusive. */
export type EpochRange = { from: number; to: number };

const DAY = 86_400;
export const PERIOD_PRESETS = [
  { value: '30', label: '30 days' },
  { value: '90', label: '90 days' },
  { value: '182', label: '6 months' },
  { value: '365', label: '12 months' },
  { value: 'custom', label: 'Custom' },
];

/** The last `days` days up to the end of today (local), as epoch seconds. */
export function rangeOfDays(days: number, now = new Date()): EpochRange {
  const end = new Date(now);
  end.setHours(24, 0, 0, 0);
  const to = Math.floor(end.getTime() / 1000);
  return { from: to - days * DAY, to };
}

/** Whole local days, first to last included (YYYY-MM-DD), as epoch seconds with `to` exclusive. */
export function rangeOfDates(first: string, last: string): EpochRange {
  const [fy, fm, fd] = first.split('-').map(Number) as [number, number, number];
  const [ly, lm, ld] = last.split('-').map(Number) as [number, number, number];
  return {
    from: Math.floor(new Date(fy, fm - 1, fd).getTime() / 1000),
    to: Math.floor(new Date(ly, lm - 1, ld + 1).getTime() / 1000),
  };
}

const isoDay = (d: Date) =>
  `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** The last `days` days, today included, as a date range. */
function lastDays(days: number): [string, string] {
  const today = new Date();
  const first = new Date(today.getFullYear(), today.getMonth(), today.getDate() - days + 1);
  return [isoDay(first), isoDay(today)];
}

/**
 * The reports' period: presets (30 days … 12 months) and a custom range in the shared date picker.
 * Returns the range and the two controls, for the screen to place: the presets beside the title,
 * the custom field below it while 'Custom' is chosen. A custom range applies once both its days are
 * chosen; until then the last complete one stays.
 */
export function usePeriodPicker(defaultPreset = '90'): {
  range: EpochRange;
  presets: ReactNode;
  customField: ReactNode;
} {
  const [preset, setPreset] = useState(defaultPreset);
  const [custom, setCustom] = useState<DateRange>(() => lastDays(30));
  const [applied, setApplied] = useState<[string, string]>(() => lastDays(30));
  // Five periods fit a phone's width in the small size.
  const size = useMatches({ base: 'xs', xs: 'sm' });
  const range = useMemo(
    () => (preset === 'custom' ? rangeOfDates(applied[0], applied[1]) : rangeOfDays(Number(preset))),
    [preset, applied],
  );
  return {
    range,
    presets: (
      <Box w={{ base: '100%', sm: 'auto' }}>
        <SegmentedControl
          aria-label="Period"
          data={PERIOD_PRESETS}
          value={preset}
          onChange={setPreset}
          size={size}
          fullWidth
        />
      </Box>
    ),
    customField:
      preset === 'custom' ? (
        <DatePicker
          type="range"
          label="Custom period"
          description="First and last day, both included"
          value={custom}
          maxDate={isoDay(new Date())}
          onChange={(v) => {
            setCustom(v);
            if (v[0] && v[1]) setApplied([v[0], v[1]]);
          }}
          w={{ base: '100%', sm: 320 }}
        />
      ) : null,
  };
}
