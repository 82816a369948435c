import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import { freePort } from '../../apps/server/test/free-port.ts';
import { stretch } from './fixtures.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export type CapturedEvent = {
  event: string;
  distinct_id?: string;
  /** When the browser made the event (ISO 8601); batches can arrive out of that order. */
  timestamp?: string;
  properties: Record<string, unknown>;
};
export type PostHogHit = {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  events: CapturedEvent[];
};

/** Decodes a posthog-js request body: plain JSON, gzip (compression=gzip-js) or base64 form data. */
function decodeEvents(raw: Buffer, url: URL, contentType: string): CapturedEvent[] {
  if (raw.length === 0) return [];
  let text: string;
  if (url.searchParams.get('compression') === 'gzip-js') text = gunzipSync(raw).toString('utf8');
  else if (contentType.includes('application/x-www-form-urlencoded')) {
    const data = new URLSearchParams(raw.toString('utf8')).get('data') ?? '';
    text =
      url.searchParams.get('compression') === 'base64' ? Buffer.from(data, 'base64').toString('utf8') : data;
  } else text = raw.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  const list = Array.isArray(parsed)
    ? parsed
    : ((parsed as { batch?: unknown[] }).batch ?? [parsed as Record<string, unknown>]);
  return (list as Record<string, unknown>[])
    .filter((e) => typeof e.event === 'string')
    .map((e) => {
      const properties = (e.properties ?? {}) as Record<string, unknown>;
      return {
        event: e.event as string,
        distinct_id: (e.distinct_id ?? properties.distinct_id) as string | undefined,
        timestamp: typeof e.timestamp === 'string' ? e.timestamp : undefined,
        properties,
      };
    });
}

/**
 * A stand-in for the analytics provider's ingestion host on loopback: it records every request
 * (as the app's /ingest/ph proxy forwards it) and answers the flags and config calls with "nothing
 * enabled", the capture calls with the provider's { status: 1 }.
 */
export async function startFakePostHog() {
  const hits: PostHogHit[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const events = decodeEvents(Buffer.concat(chunks), url, req.headers['content-type'] ?? '');
      hits.push({ method: req.method ?? 'GET', path: url.pathname, headers: req.headers, events });
      if (url.pathname.endsWith('.js')) {
        res.setHeader('content-type', 'application/javascript');
        res.end('');
        return;
      }
      res.setHeader('content-type', 'application/json');
      if (url.pathname.startsWith('/flags') || url.pathname.startsWith('/decide'))
        res.end(JSON.stringify({ flags: {}, featureFlags: {}, errorsWhileComputingFlags: false }));
      else if (url.pathname.includes('/config')) res.end('{}');
      else res.end(JSON.stringify({ status: 1 }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    hits,
    events: () => hits.flatMap((h) => h.events),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * Starts another instance of the real server (apps/server/src/main.ts) with extra environment, on
 * its own fresh embedded database with the demo seed. Resolves once it is ready, or rejects with
 * its output if it exits first (a configuration it refuses).
 */
export async function startServer(env: Record<string, string>) {
  const port = await freePort();
  const baseURL = `http://localhost:${port}`;
  const dataDir = mkdtempSync(path.join(tmpdir(), 'rally-e2e-addons-'));
  const child: ChildProcessWithoutNullStreams = spawn(
    process.execPath,
    [path.join(root, 'apps/server/src/main.ts')],
    {
      env: {
        // Only what it needs: nothing inherited may point it at a shared database or Redis.
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? tmpdir(),
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_URL: baseURL,
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        SEED_DEMO: 'true',
        LOGIN_MAX_ATTEMPTS: '1000',
        ...env,
      },
    },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr.on('data', (c: Buffer) => (output += c.toString()));
  const cleanUp = () => rmSync(dataDir, { recursive: true, force: true });
  await new Promise<void>((resolve, reject) => {
    // Stretched like every wait of the suite (E2E_TIME_FACTOR): beside the other lanes of npm test an
    // embedded server's start and demo seed took past 90 s (a CI-like run of 2026-12-07, passed on retry).
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${output}`)), stretch(90_000));
    child.stdout.on('data', () => {
      if (/ready at http/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      cleanUp();
      reject(new Error(`server exited with ${code}:\n${output}`));
    });
  });
  return {
    baseURL,
    close: async () => {
      child.removeAllListeners('exit');
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => child.kill('SIGKILL'), 15_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      });
      cleanUp();
    },
  };
}
