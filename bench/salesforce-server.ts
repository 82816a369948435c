/**
 * The Salesforce fake as a server of its own for the CRM sync benchmark (servers run as child
 * processes, so the fake's work is not counted as ours): a small org plus BENCH_CRM_OPPORTUNITIES
 * opportunities and BENCH_CRM_CONTACTS contacts over 1,000 accounts, driven over the IPC channel.
 */
import { smallOrg, startFakeSalesforce } from '../apps/server/test/fakes/salesforce.ts';
import { serveOps } from './fake-server-ipc.ts';

const opportunities = Number(process.env.BENCH_CRM_OPPORTUNITIES ?? 100_000);
const contacts = Number(process.env.BENCH_CRM_CONTACTS ?? 200_000);
// Issue 43's list sync: the first BENCH_CRM_CAMPAIGN_MEMBERS contacts are members of one campaign.
const campaignMembers = Math.min(contacts, Number(process.env.BENCH_CRM_CAMPAIGN_MEMBERS ?? 0));
const started = performance.now();
const fake = await startFakeSalesforce({ seed: smallOrg() });
const stages = ['Prospecting', 'Qualification', 'Proposal/Price Quote', 'Closed Won', 'Closed Lost'];
const accounts: string[] = [];
for (let i = 0; i < 1000; i++) {
  accounts.push(fake.add('Account', { Name: `Account ${i}`, Website: `account${i}.example` }).Id);
}
const campaign =
  campaignMembers > 0
    ? fake.add('Campaign', {
        Name: 'Bench campaign',
        IsActive: true,
        NumberOfContacts: campaignMembers,
        NumberOfLeads: 0,
      })
    : undefined;
const memberIds: string[] = [];
for (let i = 0; i < contacts; i++) {
  const contact = fake.add('Contact', {
    Email: `person${i}@account${i % 1000}.example`,
    FirstName: `First${i}`,
    LastName: `Last${i}`,
    Title: 'Buyer',
    AccountId: accounts[i % 1000],
  });
  if (campaign && i < campaignMembers) {
    memberIds.push(
      fake.add('CampaignMember', { CampaignId: campaign.Id, ContactId: contact.Id, Status: 'Sent' }).Id,
    );
  }
}
for (let i = 0; i < opportunities; i++) {
  const stage = stages[i % stages.length]!;
  fake.add('Opportunity', {
    Name: `Deal ${i}`,
    AccountId: accounts[i % 1000],
    StageName: stage,
    Amount: 1000 + (i % 90_000),
    CloseDate: '2026-12-31',
    Probability: 10,
    IsClosed: stage.startsWith('Closed'),
    IsWon: stage === 'Closed Won',
  });
}
const seededMs = performance.now() - started;

const ops: Record<string, (arg: unknown) => unknown> = {
  info: () => ({
    authUrl: fake.authUrl,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    campaignId: campaign?.Id ?? null,
    seededMs,
  }),
  clear: () => fake.clearRequests(),
  requests: () => fake.requests.length,
  // The campaign changed since the last sync (its SystemModstamp moves): `share` of its members
  // responded. The next sync reads the campaign's members whole again.
  touchCampaign: (share) => {
    if (!campaign) return 0;
    const every = Math.max(1, Math.round(1 / Number(share)));
    let moved = 0;
    for (let i = 0; i < memberIds.length; i += every, moved++) {
      fake.update('CampaignMember', memberIds[i]!, { Status: 'Responded' });
    }
    fake.update('Campaign', campaign.Id, { NumberOfContacts: campaignMembers });
    return moved;
  },
};

serveOps(ops, () => fake.close());
