import { and, eq, sql } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  adCampaignCompaniesReply,
  adCampaignIdParam,
  companyEngagementParams,
  companyEngagementQuery,
  companyEngagementReply,
} from '@rally/shared/schemas/ad-network-campaigns';
import { adAudiences, adCampaigns, adNetworkConnections, companies } from '../../db/schema/index.ts';
import { tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import type { AdNetworkService } from './service.ts';

const DAY_MS = 86_400_000;
/** The most companies a campaign's table lists (most impressions first). */
const COMPANIES_MAX = 500;

type Row = Record<string, unknown>;
const rowsOf = <T>(r: unknown): T[] => ((r as { rows?: T[] }).rows ?? (r as T[])) as T[];

/**
 * Company-level engagement as the networks report it (issue 39 "Results": LinkedIn's MEMBER_COMPANY
 * pivot, stored by company-stats.ts): a campaign's companies, and one account's engagement across
 * campaigns. These are the network's counts per company; per-person counts and superprospects come
 * only from Rally's tags.
 */
export function adCompanyRoutes(base: AdNetworkService): FastifyPluginAsyncZod {
  return async (app) => {
    const { db } = app;

    app.get(
      '/ad-networks/campaigns/:id/companies',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'The companies a network campaign reached, as the network reports them (LinkedIn)',
          params: adCampaignIdParam,
          response: { 200: adCampaignCompaniesReply, 404: messageReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const [row] = await db
          .select({ c: adCampaigns, network: adNetworkConnections.network })
          .from(adCampaigns)
          .innerJoin(adAudiences, eq(adAudiences.id, adCampaigns.audienceId))
          .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
          .where(and(eq(adCampaigns.id, request.params.id), eq(adCampaigns.clientId, clientId)));
        if (!row) throw httpError(404, 'Campaign not found.');
        const api = base.adapters[row.network].campaigns?.companies;
        const items = rowsOf<Row>(
          await db.execute(sql`
select s.organization_id, o.name, o.domain, o.crm_account_id::text as account_id, ca.name as account_name,
  ca.company_id::text as company_id, sum(s.impressions)::float8 as impressions, sum(s.clicks)::float8 as clicks,
  min(s.day)::text as first_day, max(s.day)::text as last_day
from ad_network_company_stats s
left join ad_network_organizations o on o.client_id = s.client_id and o.network = s.network
  and o.organization_id = s.organization_id
left join crm_accounts ca on ca.id = o.crm_account_id
where s.campaign_id = ${row.c.id} and s.client_id = ${clientId}
group by s.organization_id, o.name, o.domain, o.crm_account_id, ca.name, ca.company_id
order by sum(s.impressions) desc, s.organization_id
limit ${COMPANIES_MAX}`),
        );
        return {
          campaign_id: row.c.id,
          network: row.network,
          supported: Boolean(api),
          pulled_at: row.c.statsPulledAt?.toISOString() ?? null,
          privacy_minimum: api?.privacyMinimum ?? null,
          items: items.map((r) => ({
            organization_id: String(r.organization_id),
            name: (r.name as string | null) ?? null,
            domain: (r.domain as string | null) ?? null,
            account_id: (r.account_id as string | null) ?? null,
            account_name: (r.account_name as string | null) ?? null,
            company_id: (r.company_id as string | null) ?? null,
            impressions: Number(r.impressions),
            clicks: Number(r.clicks),
            first_day: String(r.first_day),
            last_day: String(r.last_day),
          })),
        };
      },
    );

    app.get(
      '/ad-networks/company-engagement/:companyId',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'An account’s engagement as the ad networks report it per company (LinkedIn), by campaign',
          params: companyEngagementParams,
          querystring: companyEngagementQuery,
          response: { 200: companyEngagementReply, 404: messageReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const { companyId } = request.params;
        const [company] = await db
          .select({ id: companies.id })
          .from(companies)
          .where(and(eq(companies.id, companyId), eq(companies.clientId, clientId)));
        if (!company) throw httpError(404, 'Company not found.');
        const days = request.query.days;
        const since = new Date(Date.now() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
        const items = rowsOf<Row>(
          await db.execute(sql`
select s.network, s.campaign_id::text, c.name as campaign_name, sum(s.impressions)::float8 as impressions,
  sum(s.clicks)::float8 as clicks, max(s.day)::text as last_day
from ad_network_company_stats s
join ad_network_organizations o on o.client_id = s.client_id and o.network = s.network
  and o.organization_id = s.organization_id
join crm_accounts ca on ca.id = o.crm_account_id
join ad_network_campaigns c on c.id = s.campaign_id
where s.client_id = ${clientId} and ca.company_id = ${companyId} and s.day >= ${since}::date
group by s.network, s.campaign_id, c.name
order by sum(s.impressions) desc, s.campaign_id`),
        ).map((r) => ({
          network: String(r.network),
          campaign_id: String(r.campaign_id),
          campaign_name: String(r.campaign_name),
          impressions: Number(r.impressions),
          clicks: Number(r.clicks),
          last_day: String(r.last_day),
        }));
        return {
          company_id: companyId,
          days,
          since,
          items,
          totals: {
            impressions: items.reduce((n, i) => n + i.impressions, 0),
            clicks: items.reduce((n, i) => n + i.clicks, 0),
          },
        };
      },
    );
  };
}
