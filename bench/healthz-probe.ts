import http from 'node:http';

/**
 * A steady probe of a server's `GET /healthz`, run as a child process of a benchmark so that its
 * work is not the measured process's: one keep-alive connection, a request every `interval` ms
 * (the next one waits for the answer), each answer's latency kept. The parent sends 'stop'; the
 * probe answers with its latencies' figures. Usage: fork(this, [url, intervalMs]).
 */

const [url = '', intervalArg = '20'] = process.argv.slice(2);
const interval = Number(intervalArg);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const latencies: number[] = [];
let failures = 0;
let stopping = false;

function once(): Promise<void> {
  return new Promise((resolve) => {
    const t = performance.now();
    const req = http.get(url, { agent }, (res) => {
      res.resume();
      res.on('end', () => {
        if (res.statusCode === 200) latencies.push(performance.now() - t);
        else failures++;
        resolve();
      });
    });
    req.on('error', () => {
      failures++;
      resolve();
    });
  });
}

const pct = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]! : NaN;

process.on('message', (m) => {
  if (m === 'stop') stopping = true;
});

while (!stopping) {
  const t = performance.now();
  await once();
  const wait = interval - (performance.now() - t);
  if (wait > 0) await new Promise((r) => setTimeout(r, wait));
}
const sorted = [...latencies].sort((a, b) => a - b);
process.send!(
  {
    requests: sorted.length,
    failures,
    p50: pct(sorted, 50),
    p99: pct(sorted, 99),
    max: sorted.at(-1) ?? NaN,
  },
  () => process.exit(0),
);
