/**
 * What the list's engagement counts (issue 43): whole days in the client's time zone, today so far
 * and the days before, from the local midnight the server gives (`from`).
 */
export function wholeDays(days: number, from: string, timeZone: string): string {
  const since = new Intl.DateTimeFormat('en-US', { timeZone, month: 'short', day: 'numeric' }).format(
    new Date(from),
  );
  const before = days - 1;
  const span =
    before === 0
      ? 'today so far'
      : `today so far and the previous ${before} ${before === 1 ? 'day' : 'days'}`;
  return `Engagement counts whole days in ${timeZone}: ${span} (since midnight, ${since}).`;
}
