import { describe, expect, it } from 'vitest';
import { GroupCommit } from './group-commit.ts';

const tick = () => new Promise((r) => setTimeout(r, 5));

describe('GroupCommit', () => {
  it('batches what arrives in the same turn, and what arrives during a flush goes in the next one', async () => {
    const batches: number[][] = [];
    const gc = new GroupCommit<number, number>(
      async (items) => {
        batches.push(items);
        await tick();
        return items.map((i) => i * 10);
      },
      { maxBatch: 100, concurrency: 1 },
    );
    const first = [1, 2].map((i) => gc.submit(i));
    await new Promise((r) => setImmediate(r));
    expect(batches).toEqual([[1, 2]]);
    const rest = [3, 4, 5].map((i) => gc.submit(i));
    expect(await Promise.all(first)).toEqual([10, 20]);
    expect(await Promise.all(rest)).toEqual([30, 40, 50]);
    expect(batches).toEqual([
      [1, 2],
      [3, 4, 5],
    ]);
  });

  it('caps batches and runs up to `concurrency` flushes at once', async () => {
    let running = 0;
    let peak = 0;
    const sizes: number[] = [];
    const gc = new GroupCommit<number, number>(
      async (items) => {
        running++;
        peak = Math.max(peak, running);
        sizes.push(items.length);
        await tick();
        running--;
        return items;
      },
      { maxBatch: 3, concurrency: 2 },
    );
    await Promise.all(Array.from({ length: 10 }, (_, i) => gc.submit(i)));
    expect(peak).toBe(2);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(3);
    expect(sizes.reduce((a, b) => a + b)).toBe(10);
    await gc.idle();
  });

  it('while a flush runs, another starts only once `gather` items wait', async () => {
    const sizes: number[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const gc = new GroupCommit<number, number>(
      async (items) => {
        sizes.push(items.length);
        if (sizes.length === 1) await gate;
        else await tick();
        return items;
      },
      { maxBatch: 100, concurrency: 4, gather: 3 },
    );
    const first = gc.submit(0);
    await new Promise((r) => setImmediate(r));
    // The first flush holds [0]; two items waiting are fewer than `gather`: they wait for it.
    const two = [1, 2].map((i) => gc.submit(i));
    await tick();
    expect(sizes).toEqual([1]);
    // A third: a second flush starts beside the first and takes all three.
    const third = gc.submit(3);
    await tick();
    expect(sizes).toEqual([1, 3]);
    release();
    expect(await Promise.all([first, ...two, third])).toEqual([0, 1, 2, 3]);
    await gc.idle();
  });

  it('a failing batch is retried item by item, so only the bad item fails', async () => {
    const gc = new GroupCommit<number, number>(
      async (items) => {
        await tick();
        if (items.includes(13)) throw new Error('bad item');
        return items;
      },
      { maxBatch: 10, concurrency: 1 },
    );
    const first = gc.submit(0);
    const results = await Promise.allSettled([12, 13, 14].map((i) => gc.submit(i)));
    await first;
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
  });
});
