import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { root, rssMiB, SERVE_NODE_ARGS, startProcess } from './lib.ts';

/**
 * Memory under malformed input (issue 20.7): the real server on the embedded database with the demo
 * data, then the same load twice — every route of /v1/docs/json with bad ids, bad bodies, NUL and
 * invalid UTF-16, huge strings and numbers, wrong content types, half signed in — with RSS and a heap
 * snapshot (after a full GC) before, after each load, and after idling. A leak grows again on the
 * second load; a high-water mark does not.
 */
const DEMO = { email: 'demo@rally.test', password: 'rally-demo-2026' };
const JUNK_IDS = [
  'not-a-uuid',
  '%00',
  '99999999999999999999',
  '00000000-0000-0000-0000-000000000000',
  "'--",
  'a'.repeat(300),
];
const JUNK_BODIES: (string | undefined)[] = [
  '{}',
  '{"name":"\\u0000"}',
  '{"name":"\\ud800"}',
  JSON.stringify({ name: 'x'.repeat(100_000) }),
  '{"id":9007199254740993,"from":-1e308}',
  JSON.stringify(JSON.parse('['.repeat(200) + ']'.repeat(200))),
  '[1,2,3]',
  'not json',
  undefined,
];

type Op = { method: string; path: string };

async function session(base: string) {
  const csrfRes = await fetch(`${base}/v1/api/auth/csrf`);
  let cookie = csrfRes.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  let csrf = csrfRes.headers.get('x-xsrf-token') ?? '';
  const res = await fetch(`${base}/v1/api/auth`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-xsrf-token': csrf, cookie },
    body: JSON.stringify(DEMO),
  });
  if (res.status !== 200) throw new Error(`sign-in: ${res.status}`);
  cookie = `${cookie}; ${res.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')}`;
  csrf = res.headers.get('x-xsrf-token') ?? csrf;
  const self = (await (await fetch(`${base}/v1/api/user/self`, { headers: { cookie } })).json()) as {
    clients: { client_id: string }[];
  };
  return { cookie, csrf, clientId: self.clients[0]?.client_id ?? '' };
}

async function load(base: string, ops: Op[], requests: number, auth: Awaited<ReturnType<typeof session>>) {
  let i = 0;
  const counts = { total: 0, s5xx: 0 };
  const worker = async () => {
    for (;;) {
      const n = i++;
      if (n >= requests) return;
      const op = ops[n % ops.length]!;
      const id = JUNK_IDS[Math.floor(n / ops.length) % JUNK_IDS.length]!;
      const body = JUNK_BODIES[n % JUNK_BODIES.length];
      const url = `${base}${op.path.replace(/\{[^}]+\}/g, id)}?from=${n % 2 ? '-1' : 'x'}&limit=1e9&q=%00`;
      const signedIn = n % 2 === 0;
      const headers: Record<string, string> = {};
      if (signedIn)
        Object.assign(headers, {
          cookie: auth.cookie,
          'x-xsrf-token': auth.csrf,
          'x-client-id': auth.clientId,
        });
      const hasBody = op.method !== 'GET' && op.method !== 'DELETE' && body !== undefined;
      if (hasBody) headers['content-type'] = n % 7 === 0 ? 'text/plain' : 'application/json';
      try {
        const res = await fetch(url, { method: op.method, headers, body: hasBody ? body : undefined });
        await res.arrayBuffer();
        counts.total++;
        if (res.status >= 500) counts.s5xx++;
      } catch {
        counts.total++;
      }
    }
  };
  await Promise.all(Array.from({ length: 16 }, worker));
  return counts;
}

function newestSnapshot(dir: string, before: Set<string>): string {
  const files = readdirSync(dir).filter((f) => f.endsWith('.heapsnapshot') && !before.has(f));
  if (!files.length) throw new Error('no heap snapshot written');
  return path.join(dir, files[0]!);
}

/** Writes a heap snapshot (SIGWINCH; V8 runs a full GC first) and sums it: total and top constructors. */
async function snapshot(pid: number, dir: string) {
  const before = new Set(readdirSync(dir));
  process.kill(pid, 'SIGWINCH');
  let file = '';
  for (let t = 0; t < 600; t++) {
    await new Promise((r) => setTimeout(r, 500));
    try {
      file = newestSnapshot(dir, before);
      const size = statSync(file).size;
      await new Promise((r) => setTimeout(r, 1000));
      if (statSync(file).size === size && size > 0) break;
    } catch {
      // not written yet
    }
  }
  const snap = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  rmSync(file);
  const fields = snap.snapshot.meta.node_fields;
  const stride = fields.length;
  const typeI = fields.indexOf('type');
  const nameI = fields.indexOf('name');
  const sizeI = fields.indexOf('self_size');
  const types = snap.snapshot.meta.node_types[0];
  const byName = new Map<string, { count: number; size: number }>();
  let total = 0;
  for (let n = 0; n < snap.nodes.length; n += stride) {
    const size = snap.nodes[n + sizeI]!;
    total += size;
    const type = types[snap.nodes[n + typeI]!]!;
    const name =
      type === 'object' || type === 'closure' ? snap.strings[snap.nodes[n + nameI]!]! : `(${type})`;
    const e = byName.get(name) ?? { count: 0, size: 0 };
    e.count++;
    e.size += size;
    byName.set(name, e);
  }
  return { totalMiB: total / 2 ** 20, byName };
}

function diff(
  a: Map<string, { count: number; size: number }>,
  b: Map<string, { count: number; size: number }>,
) {
  const rows = [...b].map(([name, v]) => {
    const o = a.get(name) ?? { count: 0, size: 0 };
    return { name, dCount: v.count - o.count, dKiB: (v.size - o.size) / 1024 };
  });
  return rows.sort((x, y) => y.dKiB - x.dKiB).slice(0, 8);
}

export async function run(requests = Number(process.env.BENCH_MEMORY_REQUESTS ?? 20_000)) {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-mem-'));
  const snapDir = mkdtempSync(path.join(tmpdir(), 'rally-bench-heap-'));
  const server = await startProcess(
    path.join(root, 'apps/server/src/main.ts'),
    {
      DATA_DIR: dataDir,
      LOGIN_MAX_ATTEMPTS: '1000',
      NODE_OPTIONS: `--heapsnapshot-signal=SIGWINCH --diagnostic-dir=${snapDir}`,
    },
    SERVE_NODE_ARGS,
  );
  const pid = server.child.pid!;
  let serverLog = '';
  server.child.stderr?.on('data', (c: Buffer) => (serverLog += c.toString()));
  server.child.stdout?.on('data', (c: Buffer) => (serverLog += c.toString()));
  server.child.on('exit', (code, signal) =>
    console.error(`server exited: ${code} ${signal}\n${serverLog.slice(-3000)}`),
  );
  try {
    const spec = (await (await fetch(`${server.url}/v1/docs/json`)).json()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const ops: Op[] = [];
    for (const [p, methods] of Object.entries(spec.paths))
      for (const m of Object.keys(methods))
        if (['get', 'post', 'put', 'patch', 'delete'].includes(m) && !/logout/.test(p))
          ops.push({ method: m.toUpperCase(), path: p });
    const auth = await session(server.url);
    // Warm-up: every route once, so lazily built things (schemas, caches) are in the baseline.
    await load(server.url, ops, ops.length * 2, auth);
    const idle = () => new Promise((r) => setTimeout(r, 15_000));
    const s0 = await snapshot(pid, snapDir);
    const rss0 = rssMiB(pid);
    console.log(
      `memory: ${ops.length} operations; baseline RSS ${rss0.toFixed(0)} MiB, heap ${s0.totalMiB.toFixed(1)} MiB`,
    );
    for (const [name, v] of [...s0.byName].sort((a, b) => b[1].size - a[1].size).slice(0, 6))
      console.log(
        `  ${name.slice(0, 40).padEnd(40)} ${String(v.count).padStart(8)} objects ${(v.size / 2 ** 20).toFixed(1).padStart(8)} MiB`,
      );
    let prev = s0;
    for (const round of [1, 2]) {
      const t = performance.now();
      const c = await load(server.url, ops, requests, auth);
      const secs = (performance.now() - t) / 1000;
      const rssAfter = rssMiB(pid);
      await idle();
      const s = await snapshot(pid, snapDir);
      console.log(
        `memory: load ${round}: ${c.total} requests in ${secs.toFixed(0)} s (${c.s5xx} 5xx); RSS after ${rssAfter.toFixed(0)} MiB, idle ${rssMiB(pid).toFixed(0)} MiB; heap ${s.totalMiB.toFixed(1)} MiB`,
      );
      for (const r of diff(prev.byName, s.byName))
        console.log(
          `  ${r.name.slice(0, 40).padEnd(40)} ${String(r.dCount).padStart(8)} objects ${r.dKiB.toFixed(0).padStart(8)} KiB`,
        );
      prev = s;
    }
  } catch (err) {
    console.error(
      'memory bench failed:',
      err,
      'server exit code',
      server.child.exitCode,
      server.child.signalCode,
    );
    throw err;
  } finally {
    if (server.child.exitCode === null && server.child.signalCode === null) await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(snapDir, { recursive: true, force: true });
  }
}
