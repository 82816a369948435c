import { describe, expect, it } from 'vitest';
import { twoAtATime } from './two-at-a-time.ts';

async function* numbers(n: number) {
  for (let i = 1; i <= n; i++) yield i;
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const deadlock = () => Object.assign(new Error('deadlock detected'), { code: '40P01' });

describe('twoAtATime (issue 43: two batches stored at once)', () => {
  it('runs two at once, never three, and reports each batch committed in order', async () => {
    const log: string[] = [];
    let running = 0;
    let most = 0;
    await twoAtATime(
      numbers(5),
      (b) => {
        log.push(`start ${b}`);
        return async () => {
          most = Math.max(most, ++running);
          await sleep(b === 1 ? 20 : 2); // the first ends last of the first two
          running--;
        };
      },
      (b) => log.push(`committed ${b}`),
    );
    expect(most).toBe(2);
    expect(log.filter((l) => l.startsWith('committed'))).toEqual(
      [1, 2, 3, 4, 5].map((b) => `committed ${b}`),
    );
    // A batch starts only once the one two before it is committed.
    for (let b = 3; b <= 5; b++)
      expect(log.indexOf(`start ${b}`)).toBeGreaterThan(log.indexOf(`committed ${b - 2}`));
  });

  it('runs a batch chosen as a deadlock victim again, alone, after the one beside it', async () => {
    const log: string[] = [];
    let tries = 0;
    await twoAtATime(
      numbers(2),
      (b) => async () => {
        log.push(`run ${b}`);
        if (b === 1 && tries++ === 0) {
          await sleep(1);
          throw deadlock();
        }
        await sleep(5);
        log.push(`done ${b}`);
      },
      (b) => log.push(`committed ${b}`),
    );
    expect(log).toEqual(['run 1', 'run 2', 'done 2', 'run 1', 'done 1', 'committed 1', 'committed 2']);
  });

  it('fails with the first error once the batch beside it has ended', async () => {
    const log: string[] = [];
    await expect(
      twoAtATime(
        numbers(3),
        (b) => async () => {
          if (b === 1) throw new Error('refused');
          await sleep(5);
          log.push(`done ${b}`);
        },
        (b) => log.push(`committed ${b}`),
      ),
    ).rejects.toThrow('refused');
    expect(log).toEqual(['done 2']);
  });
});
