/**
 * The IPC loop of the bench's vendor fakes run as child processes (hubspot-server.ts, marketo-server.ts,
 * salesforce-server.ts, salesloft-server.ts): the bench calls `ops` by name over the channel, and SIGTERM
 * closes the fake. Says "ready" once the loop listens.
 */
type Call = { id: number; op: string; arg?: unknown };

export function serveOps(ops: Record<string, (arg: unknown) => unknown>, close: () => Promise<void>): void {
  process.on('message', (msg: Call) => {
    try {
      process.send!({ id: msg.id, result: ops[msg.op]!(msg.arg) ?? null });
    } catch (err) {
      process.send!({ id: msg.id, error: String(err) });
    }
  });
  process.on('SIGTERM', () => void close().then(() => process.exit(0)));
  process.send!({ id: 0, result: 'ready' });
}
