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

async function timed(url: string): Promise<number> {
  const t = performance.now();
  await (await fetch(url)).arrayBuffer();
  return performance.now() - t;
}

/**
 * Sign-in latency with the argon2id parameters in use (sequential, median of 30) against a plain
 * /healthz round trip; and GET /v1/api/user/self throughput against the bare hello-world.
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
