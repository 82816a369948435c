/**
 * The HubSpot fake as a server of its own for the list sync benchmark (servers run as child
 * processes, so the fake's work is not counted as ours): the small portal plus BENCH_HUBSPOT_MEMBERS
 * contacts over 1,000 companies, all of them members of one static list, driven over IPC.
 */
import { smallPortal, startFakeHubSpot } from '../apps/server/test/fakes/hubspot.ts';
import { serveOps } from './fake-server-ipc.ts';

const members = Number(process.env.BENCH_HUBSPOT_MEMBERS ?? 100_000);
const started = performance.now();
const fake = await startFakeHubSpot({ seed: smallPortal() });
const companies = Array.from({ length: 1000 }, (_, i) => ({
  properties: { name: `Company ${i}`, domain: `company${i}.example` },
}));
const contacts = Array.from({ length: members }, (_, i) => ({
  properties: {
    email: `person${i}@company${i % 1000}.example`,
    firstname: `First${i}`,
    lastname: `Last${i}`,
    jobtitle: 'Buyer',
  },
  companyIndex: i % 1000,
}));
fake.seed({
  companies,
  contacts,
  lists: [{ name: 'Bench list', contactIndexes: contacts.map((_, i) => i) }],
});
const list = fake.lists.find((l) => l.name === 'Bench list')!;
const seededMs = performance.now() - started;

const ops: Record<string, (arg: unknown) => unknown> = {
  info: () => ({
    apiUrl: fake.apiUrl,
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    listId: list.listId,
    seededMs,
  }),
  clear: () => fake.clearRequests(),
  requests: () => fake.requests.length,
};

serveOps(ops, () => fake.close());
