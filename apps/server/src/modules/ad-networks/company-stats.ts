import { and, eq, gte, isNull, lt, lte, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/client.ts';
import { adCampaigns, adCompanyStats, adNetworkOrganizations } from '../../db/schema/index.ts';
import { domainOf } from '../crm/match.ts';
import type { AdapterContext, AdNetwork, AdNetworkCompanyApi, RemoteOrganization } from './port.ts';

const CHUNK = 1_000;
const DAY_MS = 86_400_000;
/** An organisation's website and name are looked up again after this long (companies rename, move). */
const LOOKUP_AGAIN_MS = 30 * DAY_MS;
/** Organisations looked up per pull, so one pull stays short; the rest wait for the next pull. */
const LOOKUPS_PER_PULL = 500;

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

export type CompanyPull = { since: string; until: string; rows: number; lookedUp: number; matched: number };

/**
 * Company-level engagement of one campaign (issue 39 "Results": LinkedIn's MEMBER_COMPANY pivot):
 * the days `since`..`until` replace the stored ones in one transaction under the campaign's row lock
 * (so a day pulled twice is stored once and a late correction lands), like the campaign's own
 * results. Then organisations not yet described are looked up in the network's batches, matched to
 * the client's CRM accounts by website domain (else vanity name), and the journeys of those accounts
 * are told their data changed (journey_dirty_accounts, decision 0036).
 */
export async function pullCompanyStats(deps: {
  db: Db;
  log: FastifyBaseLogger;
  api: AdNetworkCompanyApi;
  run: <T>(fn: (ctx: AdapterContext) => Promise<T>) => Promise<T>;
  campaign: { id: string; clientId: string; remoteId: string; network: AdNetwork };
  range: { since: string; until: string };
  now: Date;
}): Promise<CompanyPull | null> {
  const { db, api, run, campaign: c, now } = deps;
  // The network keeps company-level results for a shorter time than the rest: ask only for those.
  const kept = isoDay(new Date(now.getTime() - (api.keptDays - 1) * DAY_MS));
  const since = deps.range.since > kept ? deps.range.since : kept;
  const until = deps.range.until;
  if (since > until) return null;
  const rows = await run((ctx) => api.dailyStats(ctx, c.remoteId, { since, until }));
  await db.transaction(async (tx) => {
    await tx.execute(sql`select 1 from ${adCampaigns} where ${adCampaigns.id} = ${c.id} for update`);
    await tx
      .delete(adCompanyStats)
      .where(
        and(
          eq(adCompanyStats.campaignId, c.id),
          gte(adCompanyStats.day, since),
          lte(adCompanyStats.day, until),
        ),
      );
    for (let i = 0; i < rows.length; i += CHUNK) {
      await tx
        .insert(adCompanyStats)
        .values(
          rows.slice(i, i + CHUNK).map((r) => ({
            campaignId: c.id,
            clientId: c.clientId,
            network: c.network,
            organizationId: r.organizationId,
            day: r.day,
            impressions: r.impressions,
            clicks: r.clicks,
            pulledAt: now,
          })),
        )
        // The network names a company once per day; a repeat in one reply is the same row again.
        .onConflictDoUpdate({
          target: [adCompanyStats.campaignId, adCompanyStats.organizationId, adCompanyStats.day],
          set: { impressions: sql`excluded.impressions`, clicks: sql`excluded.clicks` },
        });
    }
    const orgs = [...new Set(rows.map((r) => r.organizationId))];
    for (let i = 0; i < orgs.length; i += CHUNK)
      await tx
        .insert(adNetworkOrganizations)
        .values(
          orgs
            .slice(i, i + CHUNK)
            .map((organizationId) => ({ clientId: c.clientId, network: c.network, organizationId })),
        )
        .onConflictDoNothing();
  });
  const lookedUp = await describe(deps, now);
  const matched = await matchAccounts(db, c.clientId, c.network);
  await markJourneys(db, c.id, since);
  return { since, until, rows: rows.length, lookedUp, matched };
}

/** Looks up the client's organisations not described yet (or long ago), batch by batch. */
async function describe(deps: Parameters<typeof pullCompanyStats>[0], now: Date): Promise<number> {
  const { db, api, run, campaign: c, log } = deps;
  const due = await db
    .select({ id: adNetworkOrganizations.organizationId })
    .from(adNetworkOrganizations)
    .where(
      and(
        eq(adNetworkOrganizations.clientId, c.clientId),
        eq(adNetworkOrganizations.network, c.network),
        or(
          isNull(adNetworkOrganizations.lookedUpAt),
          lt(adNetworkOrganizations.lookedUpAt, new Date(now.getTime() - LOOKUP_AGAIN_MS)),
        ),
      ),
    )
    .orderBy(adNetworkOrganizations.organizationId)
    .limit(LOOKUPS_PER_PULL);
  let done = 0;
  for (let i = 0; i < due.length; i += api.lookupBatch) {
    const ids = due.slice(i, i + api.lookupBatch).map((d) => d.id);
    let found: RemoteOrganization[];
    try {
      found = await run((ctx) => api.lookup(ctx, ids));
    } catch (err) {
      // Names and websites are for matching: the engagement is stored already; the next pull tries again.
      log.warn({ err, campaignId: c.id }, 'could not look up the organisations of company results');
      return done;
    }
    const byId = new Map(found.map((o) => [o.id, o]));
    for (const id of ids) {
      const o = byId.get(id);
      await db
        .update(adNetworkOrganizations)
        .set({
          name: o?.name ?? null,
          vanityName: o?.vanityName ?? null,
          website: o?.website ?? null,
          domain: domainOf(o?.website),
          lookedUpAt: now,
          updatedAt: now,
        })
        .where(
          and(
            eq(adNetworkOrganizations.clientId, c.clientId),
            eq(adNetworkOrganizations.network, c.network),
            eq(adNetworkOrganizations.organizationId, id),
          ),
        );
    }
    done += ids.length;
  }
  return done;
}

/**
 * Unmatched organisations of a client matched to its CRM accounts (not deleted): by website domain
 * (the oldest account of that domain), else by vanity name equal to the first label of exactly one
 * account's domain ("acme" ↔ acme.com). A match whose account was deleted is made again.
 */
export async function matchAccounts(db: Db, clientId: string, network: AdNetwork): Promise<number> {
  const byDomain = await db.execute(sql`
update ad_network_organizations o set crm_account_id = m.id, matched_by = 'domain', updated_at = now()
from (
  select distinct on (o2.organization_id) o2.organization_id, ca.id
  from ad_network_organizations o2
  join crm_accounts ca on ca.client_id = o2.client_id and ca.domain = o2.domain and not ca.is_deleted
  where o2.client_id = ${clientId} and o2.network = ${network} and o2.crm_account_id is null
  order by o2.organization_id, ca.created_at, ca.id
) m
where o.client_id = ${clientId} and o.network = ${network} and o.organization_id = m.organization_id`);
  const byVanity = await db.execute(sql`
update ad_network_organizations o set crm_account_id = m.id, matched_by = 'vanity_name', updated_at = now()
from (
  select o2.organization_id, min(ca.id::text)::uuid as id
  from ad_network_organizations o2
  join crm_accounts ca on ca.client_id = o2.client_id and not ca.is_deleted
    and split_part(ca.domain, '.', 1) = lower(o2.vanity_name)
  where o2.client_id = ${clientId} and o2.network = ${network} and o2.crm_account_id is null
    and o2.vanity_name is not null
  group by o2.organization_id
  having count(*) = 1
) m
where o.client_id = ${clientId} and o.network = ${network} and o.organization_id = m.organization_id`);
  const n = (r: unknown) => Number((r as { rowCount?: number; affectedRows?: number }).rowCount ?? 0);
  return n(byDomain) + n(byVanity);
}

/**
 * Lists the accounts of this campaign's companies (pulled from `since`) as changed for every journey
 * of the client whose cohort holds them: the journey job's next run reads them (decision 0036).
 */
async function markJourneys(db: Db, campaignId: string, since: string): Promise<void> {
  await db.execute(sql`
insert into journey_dirty_accounts (journey_id, account_id)
select distinct j.id, ca.company_id
from ad_network_company_stats s
join ad_network_organizations o on o.client_id = s.client_id and o.network = s.network
  and o.organization_id = s.organization_id
join crm_accounts ca on ca.id = o.crm_account_id and ca.company_id is not null
join journeys j on j.client_id = s.client_id
where s.campaign_id = ${campaignId} and s.day >= ${since}::date
  and exists (select 1 from cohort_members m where m.cohort_id = j.cohort_id and m.company_id = ca.company_id)`);
}
