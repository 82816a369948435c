import { isIPv4, isIPv6 } from 'node:net';

/**
 * Address ranges built once into sorted, non-overlapping intervals, looked up by binary search:
 * a lookup is about 20 comparisons however many ranges (Apple's egress list alone has tens of
 * thousands). IPv4 in a Float64Array (exact for 32-bit integers), IPv6 as bigints.
 */
export type RangeSet<L> = { lookup(ip: string): L | undefined; size: number };

type Interval<N, L> = { start: N; end: N; label: L };

export function ipv4ToNumber(ip: string): number {
  const p = ip.split('.');
  return ((Number(p[0]) * 256 + Number(p[1])) * 256 + Number(p[2])) * 256 + Number(p[3]);
}

export function ipv6ToBigInt(ip: string): bigint {
  let text = ip;
  // An embedded IPv4 tail (::ffff:1.2.3.4) becomes its two groups.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (v4?.[1]) {
    const n = ipv4ToNumber(v4[1]);
    text = `${text.slice(0, -v4[1].length)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t];
  let n = 0n;
  for (const g of groups) n = (n << 16n) | BigInt(parseInt(g || '0', 16));
  return n;
}

/** `a.b.c.d/n` or `x::/n` as an interval; null when it is no range. */
export function parseCidr(
  cidr: string,
): { v: 4; start: number; end: number } | { v: 6; start: bigint; end: bigint } | null {
  const [addr = '', bits] = cidr.trim().split('/');
  if (isIPv4(addr)) {
    const n = bits === undefined ? 32 : Number(bits);
    if (!Number.isInteger(n) || n < 0 || n > 32) return null;
    const size = 2 ** (32 - n);
    const start = Math.floor(ipv4ToNumber(addr) / size) * size;
    return { v: 4, start, end: start + size - 1 };
  }
  if (isIPv6(addr)) {
    const n = bits === undefined ? 128 : Number(bits);
    if (!Number.isInteger(n) || n < 0 || n > 128) return null;
    const host = (1n << BigInt(128 - n)) - 1n;
    const start = ipv6ToBigInt(addr) & ~host & ((1n << 128n) - 1n);
    return { v: 6, start, end: start | host };
  }
  return null;
}

// Sorted by start; where ranges overlap, the earlier-listed one keeps the shared part.
function build<N extends number | bigint, L>(list: Interval<N, L>[], next: (n: N) => N): Interval<N, L>[] {
  list.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
  const out: Interval<N, L>[] = [];
  for (const r of list) {
    const last = out[out.length - 1];
    if (last && r.start <= last.end) {
      if (r.end <= last.end) continue;
      out.push({ start: next(last.end), end: r.end, label: r.label });
    } else out.push(r);
  }
  return out;
}

function find<N extends number | bigint, L>(list: Interval<N, L>[], x: N): L | undefined {
  let lo = 0;
  let hi = list.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const r = list[mid] as Interval<N, L>;
    if (x < r.start) hi = mid - 1;
    else if (x > r.end) lo = mid + 1;
    else return r.label;
  }
  return undefined;
}

/** A lookup structure over labelled CIDR ranges; entries that are no range are skipped. */
export function rangeSet<L>(entries: Iterable<[cidr: string, label: L]>): RangeSet<L> {
  const v4: Interval<number, L>[] = [];
  const v6: Interval<bigint, L>[] = [];
  for (const [cidr, label] of entries) {
    const r = parseCidr(cidr);
    if (r?.v === 4) v4.push({ start: r.start, end: r.end, label });
    else if (r?.v === 6) v6.push({ start: r.start, end: r.end, label });
  }
  const four = build(v4, (n) => n + 1);
  const six = build(v6, (n) => n + 1n);
  return {
    size: four.length + six.length,
    lookup(ip: string): L | undefined {
      if (isIPv4(ip)) return find(four, ipv4ToNumber(ip));
      if (ip.startsWith('::ffff:') && isIPv4(ip.slice(7))) return find(four, ipv4ToNumber(ip.slice(7)));
      if (six.length && isIPv6(ip)) return find(six, ipv6ToBigInt(ip));
      return undefined;
    },
  };
}
