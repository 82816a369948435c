import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { and, eq, sql } from 'drizzle-orm';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { BuiltInRole } from '@rally/shared';
import type { FastifyInstance } from 'fastify';
import { hashPassword } from '../lib/passwords.ts';
import { DEMO_SEED_LOCK } from './client.ts';
import type { Db } from './client.ts';
import { importCsvFile } from '../modules/fileforce/index.ts';
import { seedDemoContent } from '../modules/content/index.ts';
import type { FileforceDeps } from '../modules/fileforce/index.ts';
import { seedDemoEngagement } from '../modules/tracking/index.ts';
import type { TrackingService } from '../modules/tracking/index.ts';
import { seedDemoBilling } from '../modules/billing/index.ts';
import { seedDemoCrm } from '../modules/crm/index.ts';
import { seedDemoCohorts } from '../modules/cohorts/index.ts';
import type { CohortService } from '../modules/cohorts/index.ts';
import { seedDemoCampaigns } from '../modules/campaigns/index.ts';
import { seedDemoEmailAds } from '../modules/email-ads/index.ts';
import type { CampaignService } from '../modules/campaigns/index.ts';
import type { JourneyService } from '../modules/journeys/index.ts';
import type { BillingService, Charging, PaymentProvider } from '../modules/billing/index.ts';
import { seedDemoAdNetwork } from '../modules/ad-networks/demo.ts';
import type { AdCampaignStats } from '../modules/ad-networks/campaign-stats.ts';
import type { DemoNetworks } from '../demo-networks/index.ts';
import { createSecretBox } from '../lib/crypto.ts';
import { clients, demoSeedRuns, integrations, memberships, salesReps, users } from './schema/index.ts';

export const DEMO_EMAIL = 'demo@rally.test';
export const DEMO_PASSWORD = 'rally-demo-2026';

/** Fixed ids make the seed idempotent and let docs and tests name the demo clients. */
export const DEMO_CLIENTS = {
  agency: { id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001', name: 'Northwind Agency', parentId: null },
  acme: {
    id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002',
    name: 'Acme Robotics',
    parentId: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001',
  },
  globex: {
    id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000003',
    name: 'Globex Logistics',
    parentId: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001',
  },
} as const;

type DemoUser = {
  email: string;
  firstName: string;
  lastName: string;
  memberships: { client: keyof typeof DEMO_CLIENTS; role: BuiltInRole; isDefault?: boolean }[];
};

export const DEMO_USERS: DemoUser[] = [
  {
    email: DEMO_EMAIL,
    firstName: 'Dana',
    lastName: 'Reyes',
    memberships: [
      { client: 'agency', role: 'purple_owner', isDefault: true },
      { client: 'acme', role: 'purple_owner' },
      { client: 'globex', role: 'green_manager' },
    ],
  },
  {
    email: 'sam@rally.test',
    firstName: 'Sam',
    lastName: 'Okafor',
    memberships: [{ client: 'acme', role: 'yellow_sdr', isDefault: true }],
  },
  // A marketing manager (issue 18): builds cohorts without running cadences.
  {
    email: 'morgan@rally.test',
    firstName: 'Morgan',
    lastName: 'Lee',
    memberships: [{ client: 'acme', role: 'green_manager', isDefault: true }],
  },
];

/**
 * Creates the demo data if it is missing; running it again changes nothing. Every demo user signs in
 * with DEMO_PASSWORD.
 */
export async function seedDemo(db: Db): Promise<{ created: boolean }> {
  let created = false;
  let passwordHash: string | undefined;
  await db.transaction(async (tx) => {
    await tx.insert(clients).values(Object.values(DEMO_CLIENTS)).onConflictDoNothing();
    for (const u of DEMO_USERS) {
      const [existing] = await tx
        .select({ id: users.id })
        .from(users)
        .where(eq(sql`lower(${users.email})`, u.email));
      let userId = existing?.id;
      if (!userId) {
        passwordHash ??= await hashPassword(DEMO_PASSWORD);
        const [row] = await tx
          .insert(users)
          .values({ email: u.email, firstName: u.firstName, lastName: u.lastName, passwordHash })
          .returning({ id: users.id });
        userId = row?.id;
        created = true;
      }
      if (!userId) throw new Error(`seed: could not create ${u.email}`);
      for (const m of u.memberships) {
        const clientId = DEMO_CLIENTS[m.client].id;
        const [has] = await tx
          .select({ id: memberships.id })
          .from(memberships)
          .where(and(eq(memberships.userId, userId), eq(memberships.clientId, clientId)));
        if (has) continue;
        await tx.insert(memberships).values({
          userId,
          clientId,
          role: m.role,
          permissions: [...BUILT_IN_ROLES[m.role]],
          isDefault: m.isDefault ?? false,
        });
      }
    }
  });
  return { created };
}

const DEMO_FILES = path.join(path.dirname(fileURLToPath(import.meta.url)), 'demo');
/** Demo clients that open on data; Globex is left empty so onboarding can be tried. */
const DEMO_DATA_CLIENTS = ['agency', 'acme'] as const;

/**
 * The demo's prospects and revenue go through the real file import (issue 6), once per client: a
 * client that already has a file-import integration is left as it is, so restarts add nothing.
 */
export async function seedDemoData(deps: FileforceDeps): Promise<{ imported: number }> {
  let imported = 0;
  const [demoUser] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(eq(sql`lower(${users.email})`, DEMO_EMAIL));
  for (const key of DEMO_DATA_CLIENTS) {
    const clientId = DEMO_CLIENTS[key].id;
    const [has] = await deps.db
      .select({ id: integrations.id })
      .from(integrations)
      .where(and(eq(integrations.clientId, clientId), eq(integrations.source, 'fileforce')));
    if (has) continue;
    for (const kind of ['targets', 'revenue'] as const) {
      const done = await importCsvFile(deps, {
        clientId,
        kind,
        filePath: path.join(DEMO_FILES, kind === 'targets' ? 'prospects.csv' : 'revenue.csv'),
        userId: demoUser?.id,
      });
      imported += done.imported_rows;
    }
    // Onboarding would ask; the demo runs ads for every rep.
    await deps.db.update(salesReps).set({ selected: true }).where(eq(salesReps.clientId, clientId));
  }
  return { imported };
}

/**
 * Issue 16: per demo data client, a demo Salesforce connection with its stage catalogue, ~90
 * opportunities over the last six months with their stage history on the demo companies, owners,
 * accounts, contacts, campaigns and activity counts. Run after seedDemoData (it maps to its
 * companies, prospects and sales reps); once per client.
 */
export async function seedDemoCrmData(db: Db): Promise<{ opportunities: number }> {
  return seedDemoCrm(
    db,
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key].id),
  );
}

/** Issue 8: per demo data client, brand settings, a landing page and two published ads using it. */
export async function seedDemoContentData(db: Db): Promise<{ created: number }> {
  return seedDemoContent(
    db,
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key].id),
  );
}

/**
 * Issue 7: ads on for the demo clients' cadences, their published content on the cadence days (when
 * a content seed made some), and 60 days of impressions and clicks recorded through the tracking
 * service, so the feed, cadence counts and superprospects are alive. Events are made once per client.
 */
export async function seedDemoEngagementData(deps: {
  db: Db;
  tracking: TrackingService;
}): Promise<{ events: number }> {
  return seedDemoEngagement(
    deps,
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key].id),
  );
}

/**
 * Issue 18: two cohorts per demo data client with 60 days of engagement, the first with a journey
 * whose accounts move stage over those days; after the engagement seed.
 */
export async function seedDemoCohortData(deps: {
  db: Db;
  tracking: TrackingService;
  cohorts: CohortService;
  journeys?: JourneyService;
}): Promise<{ cohorts: number; events: number }> {
  return seedDemoCohorts(
    deps,
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key].id),
  );
}

/** Issue 18: one campaign on a demo cohort per demo data client; after the cohort seed. */
export async function seedDemoCampaignData(deps: {
  db: Db;
  campaigns: CampaignService;
}): Promise<{ campaigns: number }> {
  return seedDemoCampaigns(
    deps,
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key].id),
  );
}

/**
 * Issue 38: per demo data client, its largest cadence with the e-mail snippet installed (its first
 * e-mail-rendition impression nine days ago) and opens from each kind of mail client since.
 */
export async function seedDemoEmailAdsData(deps: {
  db: Db;
  tracking: TrackingService;
}): Promise<{ events: number }> {
  return seedDemoEmailAds(
    deps,
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key].id),
  );
}

/**
 * Issue 9: per demo data client, a local test card (4242…), an address and invoice details, one paid
 * and one open invoice over its oldest superprospects (the rest stay uncharged, so the balance shows
 * both), once per client. Run after the engagement seed, which makes the superprospects.
 */
export async function seedDemoBillingData(deps: {
  db: Db;
  billing: { service: BillingService; charging: Charging; provider: PaymentProvider; now: () => Date };
}): Promise<{ invoices: number }> {
  const { billing } = deps;
  return seedDemoBilling(
    {
      db: deps.db,
      service: billing.service,
      charging: billing.charging,
      now: billing.now,
      providerName: billing.provider.name,
    },
    DEMO_DATA_CLIENTS.map((key) => DEMO_CLIENTS[key]),
  );
}

/**
 * Issue 39 item "The demo gets a connected network" (decision 0037): Northwind, where the demo user
 * lands, has Meta connected to the demo's in-process fake, a live and a paused campaign on its
 * "engaged prospects" cohort and about four weeks of their results, pulled by the stats job. Only
 * when the demo network runs (`networks`); after the cohort and content seeds; once.
 */
export async function seedDemoNetworkData(deps: {
  db: Db;
  appSecret: string;
  stats: AdCampaignStats;
  networks: DemoNetworks | null;
  now?: Date;
}): Promise<{ campaigns: number; stats: number }> {
  if (!deps.networks) return { campaigns: 0, stats: 0 };
  const [demoUser] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(eq(sql`lower(${users.email})`, DEMO_EMAIL));
  return seedDemoAdNetwork(
    {
      db: deps.db,
      box: createSecretBox(deps.appSecret),
      stats: deps.stats,
      networks: deps.networks,
      userId: demoUser?.id,
    },
    DEMO_CLIENTS.agency.id,
    deps.now,
  );
}

/** The demo rep who is the demo SDR (sam@rally.test) in Acme: Owen Castillo of the CSV. */
const DEMO_SDR_REP = 'owen.castillo@acme-robotics.example';

/**
 * Issue 42 item 9: the demo SDR is one of Acme's sales reps (matched by e-mail, as `mine` matches a
 * user to their reps), so "My prospects" shows someone's list. Renames the CSV's Owen Castillo after
 * every other seed (they map CRM owners and e-mails by the CSV's addresses); once.
 */
export async function seedDemoSdrRep(db: Db): Promise<{ renamed: number }> {
  const sdr = DEMO_USERS.find((u) => u.memberships.some((m) => m.role === 'yellow_sdr'));
  if (!sdr) return { renamed: 0 };
  const renamed = await db
    .update(salesReps)
    .set({ email: sdr.email, firstName: sdr.firstName, lastName: sdr.lastName, updatedAt: new Date() })
    .where(and(eq(salesReps.clientId, DEMO_CLIENTS.acme.id), eq(salesReps.email, DEMO_SDR_REP)))
    .returning({ id: salesReps.id });
  return { renamed: renamed.length };
}

/**
 * Every demo seed in its order, as `npm start` runs them (SEED_DEMO); the fuzz suite seeds its app
 * the same way, so a seed added here is fuzzed too. The whole seed holds a lock on the database:
 * each step checks "already there?" before writing, so instances starting together would each find
 * nothing and seed twice (issue 41 item 1: a crash on integrations_client_source_uq, 1,636
 * engagement events instead of 1,514). Once they have all run, DEMO_SEED_VERSION is recorded, and a
 * start that finds it skips them without the lock.
 */
export async function seedDemoAll(
  app: FastifyInstance,
  opts: { networks?: DemoNetworks | null } = {},
): Promise<DemoSeedSummary> {
  // A restart of a seeded database: one read instead of the steps' checks, and no lock.
  if (await demoSeeded(app.db)) return NOTHING_SEEDED;
  return app.database.withLock(DEMO_SEED_LOCK, async () => {
    // Another instance may have finished while this one waited for the lock.
    if (await demoSeeded(app.db)) return NOTHING_SEEDED;
    const summary = await seedDemoSteps(app, opts.networks ?? null);
    await app.db.insert(demoSeedRuns).values({ version: DEMO_SEED_VERSION }).onConflictDoNothing();
    return summary;
  });
}

/**
 * The demo seed's version, recorded once its steps have all run (table demo_seed_runs): a start
 * that finds it skips them. Raise it when a step is added or changes what it makes, so that
 * databases seeded before run the steps again once (each adds only what is missing).
 */
export const DEMO_SEED_VERSION = 1;

async function demoSeeded(db: Db): Promise<boolean> {
  const [row] = await db
    .select({ version: demoSeedRuns.version })
    .from(demoSeedRuns)
    .where(eq(demoSeedRuns.version, DEMO_SEED_VERSION));
  return row !== undefined;
}

const NOTHING_SEEDED: DemoSeedSummary = {
  users: false,
  imported: 0,
  opportunities: 0,
  content: 0,
  events: 0,
  cohorts: 0,
  campaigns: 0,
  invoices: 0,
  networkCampaigns: 0,
  networkStats: 0,
};

/** What one run of the demo seed made (all zero when the data was there already). */
export type DemoSeedSummary = {
  users: boolean;
  imported: number;
  opportunities: number;
  content: number;
  events: number;
  cohorts: number;
  campaigns: number;
  invoices: number;
  /** Network campaigns and the daily result rows pulled for them (decision 0037). */
  networkCampaigns: number;
  networkStats: number;
};

// A step added here, or one that makes something new, raises DEMO_SEED_VERSION.
async function seedDemoSteps(app: FastifyInstance, networks: DemoNetworks | null): Promise<DemoSeedSummary> {
  const users = await seedDemo(app.db);
  const data = await seedDemoData({ db: app.db, config: app.config, log: app.log });
  const crm = await seedDemoCrmData(app.db);
  const content = await seedDemoContentData(app.db);
  // Last: it assigns the demo content (seeded above) and records engagement over the demo targets.
  const engagement = await seedDemoEngagementData({ db: app.db, tracking: app.tracking });
  // After the engagement seed: the filter cohort picks the engaged prospects.
  const cohorts = await seedDemoCohortData({
    db: app.db,
    tracking: app.tracking,
    cohorts: app.cohorts,
    journeys: app.journeys,
  });
  // After the cohort seed: one campaign on a demo cohort.
  const campaigns = await seedDemoCampaignData({ db: app.db, campaigns: app.campaigns });
  // E-mail opens on top of the engagement seed. Before billing: its opens of nine days ago make
  // superprospects of last month, which the demo invoices must cover, else the first billing run
  // after start invoiced them as a missed month end (6 invoices where the demo has 4).
  const emailAds = await seedDemoEmailAdsData({ db: app.db, tracking: app.tracking });
  // After the engagement seeds: the demo invoices bill their superprospects.
  const billing = await seedDemoBillingData({ db: app.db, billing: app.billing });
  // After the cohort and content seeds: the network campaigns run a demo cohort and a demo ad.
  const network = await seedDemoNetworkData({
    db: app.db,
    appSecret: app.config.appSecret,
    stats: app.adCampaignStats,
    networks,
  });
  // Last: the seeds above find reps by the CSV's e-mails.
  await seedDemoSdrRep(app.db);
  return {
    users: users.created,
    imported: data.imported,
    opportunities: crm.opportunities,
    content: content.created,
    events: engagement.events + cohorts.events + emailAds.events,
    cohorts: cohorts.cohorts,
    campaigns: campaigns.campaigns,
    invoices: billing.invoices,
    networkCampaigns: network.campaigns,
    networkStats: network.stats,
  };
}
