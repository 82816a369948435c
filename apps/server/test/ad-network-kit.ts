import type { FastifyInstance } from 'fastify';
import { createSecretBox } from '../src/lib/crypto.ts';
import type { FakeMeta } from './fakes/meta.ts';
import { createTestApp } from './helpers.ts';
import {
  adNetworkConnections,
  cadences,
  cohortMembers,
  cohorts,
  integrations,
  prospects,
  targets,
} from '../src/db/schema/index.ts';

const CHUNK = 2_000;

/**
 * A cohort of `n` members (person{from+i}@example.com) written straight to the tables, as a synced
 * cohort leaves them: its hidden cadence, one prospect, target and member row each.
 */
export async function makeCohort(app: FastifyInstance, clientId: string, name: string, n: number, from = 0) {
  const db = app.db;
  const [integration] = await db
    .insert(integrations)
    .values({ clientId, source: 'fileforce', accountName: 'kit' })
    .onConflictDoUpdate({ target: [integrations.clientId, integrations.source], set: { accountName: 'kit' } })
    .returning();
  const [cadence] = await db
    .insert(cadences)
    .values({ clientId, integrationId: integration!.id, externalId: `cohort-${name}`, name, kind: 'cohort' })
    .returning();
  const [cohort] = await db
    .insert(cohorts)
    .values({ clientId, name, sourceKind: 'csv', cadenceId: cadence!.id, size: n })
    .returning();
  await addMembers(app, clientId, cohort!.id, cadence!.id, integration!.id, n, from);
  return { cohortId: cohort!.id, cadenceId: cadence!.id, integrationId: integration!.id };
}

export async function addMembers(
  app: FastifyInstance,
  clientId: string,
  cohortId: string,
  cadenceId: number,
  integrationId: number,
  n: number,
  from: number,
) {
  const db = app.db;
  for (let i = 0; i < n; i += CHUNK) {
    const size = Math.min(CHUNK, n - i);
    const people = await db
      .insert(prospects)
      .values(
        Array.from({ length: size }, (_, k) => ({
          clientId,
          integrationId,
          externalId: `p${from + i + k}`,
          // Upper case and spaces: normalised before hashing.
          email: k % 2 ? ` Person${from + i + k}@Example.com` : `person${from + i + k}@example.com`,
        })),
      )
      .returning({ id: prospects.id });
    const tags = await db
      .insert(targets)
      .values(people.map((p) => ({ clientId, cadenceId, prospectId: p.id })))
      .returning({ id: targets.id, prospectId: targets.prospectId });
    await db
      .insert(cohortMembers)
      .values(tags.map((t) => ({ clientId, cohortId, prospectId: t.prospectId, targetId: t.id })));
  }
}

/** A Meta connection written straight to the table, as the OAuth callback leaves it. */
export async function connectMetaDirectly(
  app: FastifyInstance,
  clientId: string,
  token: { accessToken: string; expiresAt: string },
) {
  const box = createSecretBox(app.config.appSecret);
  const [row] = await app.db
    .insert(adNetworkConnections)
    .values({
      clientId,
      network: 'meta',
      credentialsEnc: box.encrypt(JSON.stringify({ kind: 'oauth', refreshToken: null, ...token })),
      accountName: 'Ana Marketer',
      adAccountId: 'act_1001',
      adAccountName: 'Acme Ads',
    })
    .returning();
  return row!;
}

/** A LinkedIn connection written straight to the table, as the OAuth callback and account choice leave it. */
export async function connectLinkedInDirectly(
  app: FastifyInstance,
  clientId: string,
  token: { accessToken: string; refreshToken: string | null; expiresAt: string },
) {
  const box = createSecretBox(app.config.appSecret);
  const [row] = await app.db
    .insert(adNetworkConnections)
    .values({
      clientId,
      network: 'linkedin',
      credentialsEnc: box.encrypt(JSON.stringify({ kind: 'oauth', ...token })),
      accountName: 'Lena Marketer',
      adAccountId: '5001',
      adAccountName: 'Acme LinkedIn Ads',
    })
    .returning();
  return row!;
}

/** A Google Ads connection written straight to the table, with customer 1234567890 chosen (no page). */
export async function connectGoogleDirectly(
  app: FastifyInstance,
  clientId: string,
  token: { accessToken: string; refreshToken: string | null; expiresAt: string },
) {
  const box = createSecretBox(app.config.appSecret);
  const [row] = await app.db
    .insert(adNetworkConnections)
    .values({
      clientId,
      network: 'google',
      credentialsEnc: box.encrypt(JSON.stringify({ kind: 'oauth', ...token })),
      accountName: 'Google Ads login with 3 accounts',
      adAccountId: '1234567890',
      adAccountName: 'Acme Search',
    })
    .returning();
  return row!;
}

/**
 * A test app whose Meta adapter talks to `fake` (test/fakes/meta.ts), with retries that do not wait
 * (each wait asked for goes to `sleep`); without queue workers unless `workers` is true, so a test runs
 * the jobs itself.
 */
export function metaTestApp(
  fake: FakeMeta,
  opts: { workers?: boolean; sleep?: (ms: number) => Promise<void>; batchLimit?: number } = {},
): Promise<FastifyInstance> {
  return createTestApp({
    workers: opts.workers ?? false,
    env: {
      META_APP_ID: fake.appId,
      META_APP_SECRET: fake.appSecret,
      META_GRAPH_URL: fake.url,
      META_AUTH_URL: fake.url,
      META_API_VERSION: fake.version,
    },
    adapters: {
      retry: { sleep: opts.sleep ?? (async () => undefined), baseDelayMs: 1 },
      batchLimit: opts.batchLimit,
    },
  });
}
