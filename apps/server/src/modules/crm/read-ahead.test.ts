import { describe, expect, it } from 'vitest';
import { batches, readAhead } from './read-ahead.ts';

/** A source of pages that logs when each is asked for, so the test sees what overlaps what. */
function source(pages: number, log: string[], failAt?: number) {
  let closed = false;
  async function* gen() {
    try {
      for (let i = 1; i <= pages; i++) {
        log.push(`read ${i}`);
        await new Promise((r) => setTimeout(r, 1));
        if (i === failAt) throw new Error(`page ${i} failed`);
        yield { items: [i, i], n: i };
      }
    } finally {
      closed = true;
    }
  }
  return { pages: gen(), closed: () => closed };
}

describe('readAhead (issue 43: the next page is read while this one is stored)', () => {
  it('asks for the next item before the consumer is done with this one, never two ahead', async () => {
    const log: string[] = [];
    const { pages } = source(3, log);
    for await (const page of readAhead(pages)) {
      // The consumer "stores" the page: the next read is already under way, the one after is not.
      log.push(`store ${page.n}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(log).toEqual(['read 1', 'read 2', 'store 1', 'read 3', 'store 2', 'store 3']);
  });

  it('gives a read that failed while a page was being stored to the consumer, after that page', async () => {
    const log: string[] = [];
    const { pages } = source(3, log, 2);
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const page of readAhead(pages)) {
          seen.push(page.n);
          await new Promise((r) => setTimeout(r, 5));
        }
      })(),
    ).rejects.toThrow('page 2 failed');
    expect(seen).toEqual([1]);
  });

  it('closes the source when the consumer stops', async () => {
    const log: string[] = [];
    const src = source(5, log);
    for await (const page of readAhead(src.pages)) if (page.n === 2) break;
    await new Promise((r) => setTimeout(r, 20));
    expect(src.closed()).toBe(true);
    expect(log).toEqual(['read 1', 'read 2', 'read 3']);
  });
});

describe('batches', () => {
  it('gathers pages until they hold at least the size, the rest last', async () => {
    const log: string[] = [];
    const out: number[][] = [];
    for await (const batch of batches(source(5, log).pages, 4)) out.push(batch.map((p) => p.n));
    // Two items a page: 4 items are two pages.
    expect(out).toEqual([[1, 2], [3, 4], [5]]);
  });
});
