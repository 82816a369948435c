import { describe, expect, it } from 'vitest';
import { newcombeDifference, t975, targetsNeeded, welchDifference, wilson } from './stats.ts';

/** mulberry32: a small seeded generator, so each simulated experiment is the same on every run. */
function random(seed: number): () => number {
  // Consecutive small seeds give correlated first draws; Knuth's multiplicative hash spreads them.
  let a = Math.imul(seed, 2654435761) >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const binomial = (n: number, p: number, r: () => number) => {
  let x = 0;
  for (let i = 0; i < n; i++) if (r() < p) x++;
  return x;
};

describe('Newcombe’s hybrid score interval matches his published examples', () => {
  // Newcombe RG (1998), Statistics in Medicine 17:873–890, Table II, method 10.
  it.each([
    [56, 70, 48, 80, 0.0524, 0.3339],
    [9, 10, 3, 10, 0.1705, 0.809],
    [6, 7, 2, 7, 0.0582, 0.8062],
    [5, 56, 0, 29, -0.0381, 0.1926],
  ])('%i/%i − %i/%i → [%f, %f]', (x1, n1, x2, n2, low, high) => {
    const d = newcombeDifference(x1, n1, x2, n2);
    expect(d?.low).toBeCloseTo(low, 4);
    expect(d?.high).toBeCloseTo(high, 4);
  });

  it('Wilson’s interval of 81/263 is [0.2553, 0.3662] (Newcombe 1998, Table I) and an empty group is none', () => {
    const w = wilson(81, 263);
    expect(w.low).toBeCloseTo(0.2553, 4);
    expect(w.high).toBeCloseTo(0.3662, 4);
    expect(newcombeDifference(1, 0, 1, 10)).toBeNull();
  });
});

describe('the meeting-rate interval over simulated holdouts (10 % held out of 10,000 targets)', () => {
  const run = (seed: number, exposedRate: number, heldRate: number) => {
    const r = random(seed);
    const exposed = 9_000;
    const held = 1_000;
    return newcombeDifference(binomial(exposed, exposedRate, r), exposed, binomial(held, heldRate, r), held);
  };

  it('with no effect, the 95 % interval excludes zero in about 5 % of 200 seeds (2–9 %)', () => {
    let excluded = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const d = run(seed, 0.05, 0.05);
      if (d && (d.low > 0 || d.high < 0)) excluded++;
    }
    expect(excluded / 200).toBeGreaterThanOrEqual(0.02);
    expect(excluded / 200).toBeLessThanOrEqual(0.09);
  });

  it('with the exposed rate twice the held-out one, the interval holds the true difference (≥ 90 % of 200 seeds) and excludes zero', () => {
    let covered = 0;
    let detected = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const d = run(1000 + seed, 0.1, 0.05);
      if (d && d.low <= 0.05 && 0.05 <= d.high) covered++;
      if (d && d.low > 0) detected++;
    }
    expect(covered / 200).toBeGreaterThanOrEqual(0.9);
    expect(detected / 200).toBeGreaterThan(0.9);
  });
});

describe('Welch’s interval for amounts', () => {
  const moments = (values: number[]) => ({
    n: values.length,
    sum: values.reduce((a, b) => a + b, 0),
    sumSquares: values.reduce((a, b) => a + b * b, 0),
  });

  it('matches a hand computation', () => {
    // a: mean 3, variance 2.5 (n 5); b: mean 2, variance 2/3 (n 4); se² = 0.5 + 1/6; Welch df ≈ 6.19.
    const d = welchDifference(moments([1, 2, 3, 4, 5]), moments([1, 2, 2, 3]));
    const se = Math.sqrt(0.5 + 1 / 6);
    const df = (0.5 + 1 / 6) ** 2 / (0.5 ** 2 / 4 + (1 / 6) ** 2 / 3);
    expect(d?.difference).toBeCloseTo(1, 10);
    expect(d?.high).toBeCloseTo(1 + t975(df) * se, 10);
    expect(t975(10)).toBeCloseTo(2.2281, 3);
    expect(welchDifference(moments([1]), moments([1, 2]))).toBeNull();
  });

  it('with no effect on skewed amounts (most targets $0, a few deals), excludes zero in 2–9 % of 200 seeds', () => {
    let excluded = 0;
    for (let seed = 1; seed <= 200; seed++) {
      const r = random(5000 + seed);
      const amounts = (n: number) =>
        Array.from({ length: n }, () => (r() < 0.05 ? Math.round(5_000 + r() * 45_000) : 0));
      const d = welchDifference(moments(amounts(9_000)), moments(amounts(1_000)));
      if (d && (d.low > 0 || d.high < 0)) excluded++;
    }
    expect(excluded / 200).toBeGreaterThanOrEqual(0.02);
    expect(excluded / 200).toBeLessThanOrEqual(0.09);
  });
});

describe('targets needed for power', () => {
  it('grows as the effect shrinks and as the baseline falls; none for a zero baseline', () => {
    const half = targetsNeeded(0.05, 0.5, 9);
    const quarter = targetsNeeded(0.05, 0.25, 9);
    expect(half && quarter && quarter.heldOut > half.heldOut).toBe(true);
    expect(half?.exposed).toBe(Math.ceil((half?.heldOut ?? 0) * 9));
    expect((targetsNeeded(0.02, 0.5, 9)?.heldOut ?? 0) > (half?.heldOut ?? 0)).toBe(true);
    expect(targetsNeeded(0, 0.5, 9)).toBeNull();
  });

  it('equal groups: 5 % → 10 % needs about 435 a group (Fleiss’s formula without continuity correction)', () => {
    expect(targetsNeeded(0.05, 1, 1)?.heldOut).toBeGreaterThanOrEqual(430);
    expect(targetsNeeded(0.05, 1, 1)?.heldOut).toBeLessThanOrEqual(440);
  });
});
