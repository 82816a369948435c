import { request as httpRequest } from 'node:http';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import type { CadenceAction } from '@rally/shared/schemas/cadences';
import {
  cadenceDays,
  cadences,
  clientDomains,
  landingDomainChecks,
  clientSettings,
  companies,
  content,
  integrations,
  prospects,
  salesReps,
  targets,
} from '../src/db/schema/index.ts';
import type { ContentDay } from '../src/db/schema/index.ts';

/** A desktop browser: the tags count only traffic that looks like a person (not bots, not fetch's "node"). */
export const BROWSER_UA =
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

/**
 * What a browser sends when a person follows a link (Fetch Metadata). `fetch` itself always sends
 * `Sec-Fetch-Mode: cors`, which is no click: a script's request is a scanner's (decision 0017).
 */
export const CLICK_HEADERS: Record<string, string> = {
  'user-agent': BROWSER_UA,
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
};

/**
 * A GET over real HTTP with exactly these headers (node:http; `fetch` would put its own
 * `Sec-Fetch-Mode` in), answered as a `Response`. Redirects are not followed.
 */
export function rawGet(url: string, headers: Record<string, string> = CLICK_HEADERS): Promise<Response> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const h = new Headers();
        for (const [k, v] of Object.entries(res.headers)) {
          for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) h.append(k, one);
        }
        resolve(new Response(Buffer.concat(chunks), { status: res.statusCode ?? 0, headers: h }));
      });
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * Small factories for the engagement engine's tests: a client's integration, a selected rep, an
 * active cadence with ads on, its days with content, prospects and their targets.
 */
export async function makeIntegration(app: FastifyInstance, clientId: string): Promise<number> {
  const [existing] = await app.db.select().from(integrations).where(eq(integrations.clientId, clientId));
  if (existing) return existing.id;
  const [row] = await app.db.insert(integrations).values({ clientId, source: 'fileforce' }).returning();
  return row!.id;
}

export async function makeRep(
  app: FastifyInstance,
  clientId: string,
  opts: { selected?: boolean; calendarUrl?: string; firstName?: string } = {},
): Promise<string> {
  const integrationId = await makeIntegration(app, clientId);
  const [row] = await app.db
    .insert(salesReps)
    .values({
      clientId,
      integrationId,
      externalId: randomUUID(),
      firstName: opts.firstName ?? 'Maya',
      lastName: 'Lindgren',
      email: `rep-${randomUUID().slice(0, 8)}@example.com`,
      title: 'Senior SDR',
      companyName: 'Acme Robotics',
      calendarUrl: opts.calendarUrl ?? '',
      selected: opts.selected ?? true,
    })
    .returning({ id: salesReps.id });
  return row!.id;
}

export async function makeContent(
  app: FastifyInstance,
  clientId: string,
  opts: {
    status?: 'draft' | 'published';
    isArchived?: boolean;
    landingPageId?: string | null;
    landingPageUrl?: string;
    title?: string;
  } = {},
): Promise<string> {
  const [row] = await app.db
    .insert(content)
    .values({
      clientId,
      name: opts.title ?? 'Demo ad',
      status: opts.status ?? 'published',
      isArchived: opts.isArchived ?? false,
      templateId: 1,
      title: opts.title ?? 'Ship faster with Acme',
      imageText: 'Robots that pick and pack',
      colors: { background: '#ffffff', text: '#000000', accent: '#1c7ed6' },
      landingPagePayload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
      landingPageUrl: opts.landingPageUrl ?? '',
      landingPageId: opts.landingPageId ?? null,
    })
    .returning({ id: content.id });
  return row!.id;
}

export async function makeCadence(
  app: FastifyInstance,
  clientId: string,
  opts: {
    status?: 'draft' | 'active' | 'paused' | 'finished';
    isSuper?: boolean;
    selectedSdrs?: string[];
    days?: Record<number, ContentDay[]>;
    name?: string;
  } = {},
): Promise<number> {
  const integrationId = await makeIntegration(app, clientId);
  const [row] = await app.db
    .insert(cadences)
    .values({
      clientId,
      integrationId,
      externalId: randomUUID(),
      name: opts.name ?? 'Q3 Outbound - Operations Leaders',
      status: opts.status ?? 'active',
      isSuper: opts.isSuper ?? true,
      selectedSdrs: opts.selectedSdrs ?? [],
    })
    .returning({ id: cadences.id });
  for (const [day, contentDays] of Object.entries(opts.days ?? {})) {
    await app.db
      .insert(cadenceDays)
      .values({ clientId, cadenceId: row!.id, dayNumber: Number(day), contentDays });
  }
  return row!.id;
}

/** One content item on a day, with its transition actions (as the cadences API saves them). */
export const showing = (contentId: string, actions: CadenceAction[] = []): ContentDay[] => [
  // The table's type predates target_day_number, which the cadences API stores for move_to_day.
  { content_id: contentId, day_transition_actions: actions as ContentDay['day_transition_actions'] },
];

export async function makeProspect(app: FastifyInstance, clientId: string): Promise<string> {
  const integrationId = await makeIntegration(app, clientId);
  const [company] = await app.db
    .insert(companies)
    .values({ clientId, integrationId, externalId: randomUUID(), name: 'Brightline Freight' })
    .returning({ id: companies.id });
  const [row] = await app.db
    .insert(prospects)
    .values({
      clientId,
      integrationId,
      externalId: randomUUID(),
      firstName: 'Kendall',
      lastName: 'Ellery',
      email: `p-${randomUUID().slice(0, 8)}@example.com`,
      title: 'Procurement Lead',
      companyId: company!.id,
    })
    .returning({ id: prospects.id });
  return row!.id;
}

export async function makeTarget(
  app: FastifyInstance,
  clientId: string,
  cadenceId: number,
  opts: { repId?: string | null; prospectId?: string; dayNumber?: number; isActive?: boolean } = {},
): Promise<{ id: string; token: string; prospectId: string }> {
  const prospectId = opts.prospectId ?? (await makeProspect(app, clientId));
  const [row] = await app.db
    .insert(targets)
    .values({
      clientId,
      cadenceId,
      prospectId,
      salesRepId: opts.repId ?? null,
      dayNumber: opts.dayNumber ?? 1,
      isActive: opts.isActive ?? true,
    })
    .returning({ id: targets.id, token: targets.token });
  return { id: row!.id, token: row!.token, prospectId };
}

export async function setWebsite(app: FastifyInstance, clientId: string, websiteUrl: string): Promise<void> {
  await app.db
    .insert(clientSettings)
    .values({ clientId, colors: { background: '#ffffff', text: '#000000', accent: '#000000' }, websiteUrl })
    .onConflictDoUpdate({ target: clientSettings.clientId, set: { websiteUrl } });
}

/**
 * Marks the client's landing domain as looked at just now, as verifying it does, so that the periodic
 * re-check queued at start does not look the name up, find no TXT record and unverify it.
 */
export async function markLandingDomainChecked(app: FastifyInstance, clientId: string): Promise<void> {
  const checkedAt = new Date();
  await app.db
    .insert(landingDomainChecks)
    .values({ clientId, checkedAt })
    .onConflictDoUpdate({ target: landingDomainChecks.clientId, set: { checkedAt } });
}

/**
 * A domain the client has verified (as its TXT record would, decision 0013), or a verification
 * taken away (`verified: false`): clicks go straight to verified domains only (issue 37.8).
 */
export async function setVerifiedDomain(
  app: FastifyInstance,
  clientId: string,
  domain: string,
  verified = true,
): Promise<void> {
  const verifiedAt = verified ? new Date() : null;
  // Checked just now, as verifying does: the app's periodic re-check (domains.recheck, queued at
  // start) would otherwise look the name up, find no TXT record and take the verification away.
  const lastCheckedAt = new Date();
  await app.db
    .insert(clientDomains)
    .values({ clientId, domain, verifiedAt, lastCheckedAt })
    .onConflictDoUpdate({
      target: [clientDomains.clientId, clientDomains.domain],
      set: { verifiedAt, lastCheckedAt },
    });
}
