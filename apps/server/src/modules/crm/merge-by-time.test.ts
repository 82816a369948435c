import { describe, expect, it } from 'vitest';
import { mergeByTime } from './merge-by-time.ts';
import type { CrmPage } from './port.ts';

async function* pages(...list: string[][]): AsyncGenerator<CrmPage<string>> {
  for (const items of list) yield { items, total: list.flat().length };
}

describe('mergeByTime', () => {
  it('merges listings in time order, never yielding an item before an earlier one still to come', async () => {
    const out: CrmPage<string>[] = [];
    for await (const p of mergeByTime(
      [pages(['01', '03'], ['05', '09']), pages(['02'], [], ['04', '10'])],
      (x) => x,
    )) {
      out.push(p);
    }
    const flat = out.flatMap((p) => p.items);
    expect(flat).toEqual(['01', '02', '03', '04', '05', '09', '10']);
    // Each page's newest item is older than anything a later page holds (the sync's cursor).
    for (let i = 1; i < out.length; i++) {
      if (out[i - 1]!.items.length && out[i]!.items.length) {
        expect(out[i - 1]!.items.at(-1)! <= out[i]!.items[0]!).toBe(true);
      }
    }
    expect(out[0]!.total).toBe(7);
  });

  it('ends with empty listings', async () => {
    const out = [];
    for await (const p of mergeByTime([pages(), pages([])], (x: string) => x)) out.push(p);
    expect(out).toEqual([]);
  });
});
