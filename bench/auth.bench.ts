import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { load, median, report, root, startProcess } from './lib.ts';

const DEMO = { email: 'demo@rally.test', password: 'rally-demo-2026' };

async function signIn(base: string): Promise<{ cookie: string; ms: number }> {
  const csrfRes = await fetch(`${base}/v1/api/auth/csrf`);
  const csrfCookie = csrfRes.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const token = csrfRes.headers.get('x-xsrf-token') ?? '';
  const t = performance.now();
  const res = await fetch(`${base}/v1/api/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-xsrf-token': token, cookie: csrfCookie },
    body: JSON.stringify(DEMO),
  });
  const ms = performance.now() - t;
  if (res.status !== 200) throw new Error(`sign-in failed: ${res.status} ${await res.text()}`);
  const session = res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { cookie: `${csrfCookie}; ${session}`, ms };
}

/** One POST /v1/api/auth/link (a fresh CSRF token first, untimed); the ms of the POST alone. */
async function linkRequest(base: string, email: string): Promise<number> {
  const csrfRes = await fetch(`${base}/v1/api/auth/csrf`);
  const cookie = csrfRes.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  const token = csrfRes.headers.get('x-xsrf-token') ?? '';
  const t = performance.now();
  const res = await fetch(`${base}/v1/api/auth/link`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-xsrf-token': token, cookie },
    body: JSON.stringify({ email }),
  });
  await res.arrayBuffer();
  const ms = performance.now() - t;
  if (res.status !== 202) throw new Error(`magic link: ${res.status}`);
  return ms;
}

/**
 * Magic-link requests for a known address (the demo user) and unknown ones, interleaved, sequential:
 * the medians must match, or the answer's time tells who has an account (issue 20.6).
 */
async function magicLinkTiming(base: string, rounds = 200) {
  const known: number[] = [];
  const unknown: number[] = [];
  for (let i = 0; i < 20; i++) await linkRequest(base, `warm-${i}@nowhere.invalid`);
  const settle = () => new Promise((r) => setTimeout(r, 15));
  for (let i = 0; i < rounds; i++) {
    // A pause after each request, so the work a known address starts after its reply (token, outbox)
    // has ended before the next measured request, as for an attacker probing one address at a time.
    known.push(await linkRequest(base, DEMO.email));
    await settle();
    unknown.push(
      await linkRequest(base, `nobody-${i}-${Math.random().toString(36).slice(2)}@nowhere.invalid`),
    );
    await settle();
  }
  report(
    'magic link, known address, median',
    `${median(known).toFixed(2)} ms`,
    `${median(unknown).toFixed(2)} ms (unknown address)`,
    median(known) / median(unknown),
  );
}

async function timed(url: string): Promise<number> {
  const t = performance.now();
  await (await fetch(url)).arrayBuffer();
  return performance.now() - t;
}

/**
 * Sign-in latency with the argon2id parameters in use (sequential, median of 30) against a plain
 * /healthz round trip; magic-link answer time for a known against an unknown address (median of 200
 * each, interleaved); and GET /v1/api/user/self throughput against the bare hello-world.
 */
export async function run(seconds: number) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-'));
  const bare = await startProcess(path.join(root, 'bench/hello-server.ts'));
  const real = await startProcess(path.join(root, 'apps/server/src/main.ts'), {
    DATA_DIR: dataDir,
    LOGIN_MAX_ATTEMPTS: '1000',
  });
  try {
    const logins: number[] = [];
    const pings: number[] = [];
    for (let i = 0; i < 30; i++) {
      logins.push((await signIn(real.url)).ms);
      pings.push(await timed(`${real.url}/healthz`));
    }
    report(
      'sign-in (argon2id) median',
      `${median(logins).toFixed(1)} ms`,
      `${median(pings).toFixed(1)} ms (healthz)`,
      median(logins) / median(pings),
    );

    await magicLinkTiming(real.url);

    const { cookie } = await signIn(real.url);
    const self = async () => {
      const r = await autocannon({
        url: `${real.url}/v1/api/user/self`,
        connections: 50,
        duration: seconds,
        headers: { cookie },
      });
      if (r.non2xx || r.errors) throw new Error(`self: ${r.non2xx} non-2xx, ${r.errors} errors`);
      return r.requests.average;
    };
    await self();
    await load(`${bare.url}/healthz`, 2);
    const selfRps = (await self()) + (await self());
    const bareRps =
      (await load(`${bare.url}/healthz`, seconds)) + (await load(`${bare.url}/healthz`, seconds));
    report(
      'GET /v1/api/user/self',
      `${Math.round(selfRps / 2)} req/s`,
      `${Math.round(bareRps / 2)} req/s (bare)`,
      selfRps / bareRps,
    );
  } finally {
    await bare.stop();
    await real.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
