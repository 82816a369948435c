import { useEffect, useState } from 'react';
import { RELATIVE_TIME_UPDATE_INTERVAL_MS } from '@rally/shared';

/** The current time, renewed every 30 s (SPEC.md §9 "Relative time: ... update interval 30 s"). */
export function useNow(intervalMs: number = RELATIVE_TIME_UPDATE_INTERVAL_MS): Date {
  const [now, setNow] = useState(() => new Date());
  useEffect(() => {
    const t = setInterval(() => setNow(new Date()), intervalMs);
    return () => clearInterval(t);
  }, [intervalMs]);
  return now;
}
