/**
 * The Marketo fake as a server of its own for the CRM sync benchmark (its work is not counted as
 * ours): BENCH_CRM_MARKETO_MEMBERS leads (100,000), all members of one static list, driven over the
 * IPC channel like bench/salesforce-server.ts.
 */
import { startFakeMarketo } from '../apps/server/test/fakes/marketo.ts';
import { serveOps } from './fake-server-ipc.ts';

const members = Number(process.env.BENCH_CRM_MARKETO_MEMBERS ?? 100_000);
const started = performance.now();
const fake = await startFakeMarketo();
const ids: number[] = [];
for (let i = 0; i < members; i++) {
  ids.push(
    fake.addLead({
      email: `person${i}@account${i % 1000}.example`,
      firstName: `First${i}`,
      lastName: `Last${i}`,
      title: 'Buyer',
      company: `Account ${i % 1000}`,
    }).id,
  );
}
const list = fake.addList('Bench list', ids);
const seededMs = performance.now() - started;

const ops: Record<string, (arg: unknown) => unknown> = {
  info: () => ({
    restUrl: fake.restUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    listId: list.id,
    seededMs,
  }),
  clear: () => fake.clearRequests(),
  requests: () => fake.requests.length,
  /** The sync's calls by path, to tell what it reads beyond the floor. */
  paths: () => {
    const by: Record<string, number> = {};
    for (const r of fake.requests) {
      const p = r.path.replace(/\/\d+\//, '/{id}/');
      by[p] = (by[p] ?? 0) + 1;
    }
    return by;
  },
};

serveOps(ops, () => fake.close());
