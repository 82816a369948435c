import { useRef } from 'react';
import type { TouchEvent } from 'react';
import { CALENDAR } from '../../config/widgets.ts';

export type TouchPoint = { x: number; y: number; t: number };

/**
 * SPEC.md §9: a swipe changes the month when it takes at most 300 ms, goes at least 60 px across and
 * at most 80 px up or down. 'next' for a swipe to the left (the next month slides in), 'previous' to
 * the right, null for anything else.
 */
export function swipeDirection(start: TouchPoint, end: TouchPoint): 'next' | 'previous' | null {
  const dx = end.x - start.x;
  const dy = end.y - start.y;
  if (end.t - start.t > CALENDAR.swipeMaxMs) return null;
  if (Math.abs(dy) > CALENDAR.swipeMaxVerticalPx) return null;
  if (Math.abs(dx) < CALENDAR.swipeMinHorizontalPx) return null;
  return dx < 0 ? 'next' : 'previous';
}

/** Touch handlers for an element that pages on a swipe. */
export function useSwipe(onSwipe: (direction: 'next' | 'previous') => void) {
  const start = useRef<TouchPoint | null>(null);
  return {
    onTouchStart: (e: TouchEvent) => {
      const t = e.changedTouches[0];
      start.current = t ? { x: t.clientX, y: t.clientY, t: performance.now() } : null;
    },
    onTouchEnd: (e: TouchEvent) => {
      const t = e.changedTouches[0];
      const s = start.current;
      start.current = null;
      if (!t || !s) return;
      const direction = swipeDirection(s, { x: t.clientX, y: t.clientY, t: performance.now() });
      if (direction) onSwipe(direction);
    },
    onTouchCancel: () => {
      start.current = null;
    },
  };
}
