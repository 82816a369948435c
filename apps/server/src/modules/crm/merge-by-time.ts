import type { CrmPage } from './port.ts';

type Source<T> = { it: AsyncIterator<CrmPage<T>>; buffer: T[]; done: boolean; total: number | null };

/**
 * Listings each in time order, merged into one in time order: a page holds every buffered item up
 * to the earliest "newest so far" of the listings still going (nothing later can come before it),
 * so a sync storing each page's newest time as its cursor skips nothing after a crash.
 */
export async function* mergeByTime<T>(
  listings: AsyncIterable<CrmPage<T>>[],
  time: (item: T) => string,
): AsyncGenerator<CrmPage<T>> {
  const sources: Source<T>[] = listings.map((l) => ({
    it: l[Symbol.asyncIterator](),
    buffer: [],
    done: false,
    total: null,
  }));
  for (;;) {
    for (const s of sources) {
      while (!s.done && s.buffer.length === 0) {
        const next = await s.it.next();
        if (next.done) s.done = true;
        else {
          s.buffer.push(...next.value.items);
          s.total = next.value.total;
        }
      }
    }
    if (sources.every((s) => s.buffer.length === 0)) return;
    const newest = sources.flatMap((s) => {
      const last = s.buffer.at(-1);
      return !s.done && last !== undefined ? [time(last)] : [];
    });
    const bound = newest.sort()[0];
    const items: T[] = [];
    for (const s of sources) {
      const cut = bound === undefined ? -1 : s.buffer.findIndex((x) => time(x) > bound);
      items.push(...s.buffer.splice(0, cut < 0 ? s.buffer.length : cut));
    }
    items.sort((a, b) => time(a).localeCompare(time(b)));
    const total = sources.every((s) => s.total !== null)
      ? sources.reduce((sum, s) => sum + (s.total ?? 0), 0)
      : null;
    yield { items, total };
  }
}
