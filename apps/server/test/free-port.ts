import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/**
 * The lowest port the kernel hands out by itself (to `listen(0)` and to outgoing connections).
 * Linux's default range starts at 32768 (/proc/sys/net/ipv4/ip_local_port_range).
 */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > 12_000 && low <= 65_535) return low;
  } catch {
    // Not Linux: the default below.
  }
  return 32_768;
}

function canBind(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

/**
 * A loopback port free now, for a server that binds it a moment later (its URL must be known before
 * it starts: PUBLIC_URL, redirect URIs). Chosen at random below the kernel's ephemeral range, never
 * with `listen(0)`: a port from `listen(0)` goes back to the kernel's pool the moment the probe
 * closes, and with the API suites beside it (thousands of `listen(0)` servers and database
 * connections a minute) the kernel handed it out again before the server had started. Nothing in
 * the suites binds a fixed port in this range, so only another caller of this function could take
 * it, at one chance in thousands.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  const low = high - 12_000;
  for (let i = 0; i < 100; i++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (await canBind(port)) return port;
  }
  throw new Error(`no free loopback port in ${low}–${high - 1}`);
}
