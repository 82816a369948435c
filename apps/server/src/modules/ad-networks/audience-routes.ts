import { and, eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  AD_NETWORK_LABELS,
  adAudienceCreateBody,
  adAudienceIdParam,
  adAudienceListQuery,
  adAudienceListReply,
  adAudienceSchema,
} from '@rally/shared/schemas/ad-networks';
import type { AdAudience } from '@rally/shared/schemas/ad-networks';
import { adAudiences, adNetworkConnections } from '../../db/schema/index.ts';
import type { Db } from '../../db/client.ts';
import { authOf, tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import { sourceOf } from './audience-sources.ts';
import type { AdNetwork } from './port.ts';
import type { AdNetworkService } from './service.ts';

const audienceWrite = { permission: 'cohort.write' } as const;
const errors = { 404: messageReply, 409: messageReply };
type Audience = typeof adAudiences.$inferSelect;
const label = (n: AdNetwork) => AD_NETWORK_LABELS[n].replace(/ \(.*\)$/, '');

function audienceReply(a: Audience, network: AdNetwork, minimum: number): AdAudience {
  return {
    id: a.id,
    network,
    source_kind: a.sourceKind,
    source_id: String(a.cohortId ?? a.journeyStageId ?? a.cadenceId ?? ''),
    name: a.name,
    network_audience_id: a.networkAudienceId,
    state: a.state,
    held_reason: a.heldReason,
    push_error: a.pushError,
    member_count: a.memberCount,
    matched_lower: a.matchedLower,
    matched_upper: a.matchedUpper,
    minimum_audience: minimum,
    last_pushed_at: a.lastPushedAt?.toISOString() ?? null,
    last_push: a.lastPush,
    pool_when_small: a.poolWhenSmall,
    pooled_with: a.pooledWith
      ? {
          kind: a.pooledWith.kind,
          name: a.pooledWith.name,
          source_count: a.pooledWith.sourceCount,
          pool_count: a.pooledWith.poolCount,
          minimum: a.pooledWith.minimum,
        }
      : null,
    pool_note: a.poolNote,
  };
}

/** The client's connection to `network`, usable now; a 409 in words for the user otherwise. */
async function activeConnection(
  db: Db,
  clientId: string,
  network: AdNetwork,
): Promise<typeof adNetworkConnections.$inferSelect> {
  const [row] = await db
    .select()
    .from(adNetworkConnections)
    .where(and(eq(adNetworkConnections.clientId, clientId), eq(adNetworkConnections.network, network)));
  if (!row) throw httpError(409, `${label(network)} is not connected: connect it in Settings › Ad networks.`);
  if (!row.isActive)
    throw httpError(
      409,
      `${label(network)} stopped accepting Rally: ${row.inactiveReason ?? 'connect it again.'}`,
    );
  return row;
}

/**
 * Running a cohort, journey stage or cadence on a network (issue 39, decision 0025): reading is for
 * every member, creating and pushing an audience needs cohort.write (not SDRs or viewers).
 */
export function adAudienceRoutes(service: AdNetworkService): FastifyPluginAsyncZod {
  return async (app) => {
    const { db } = app;
    const activeConnectionOf = (clientId: string, network: AdNetwork) =>
      activeConnection(db, clientId, network);

    app.get(
      '/ad-networks/audiences',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary: 'This client’s network audiences, optionally of one cohort, stage or cadence',
          querystring: adAudienceListQuery,
          response: { 200: adAudienceListReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const { source_kind, source_id } = request.query;
        const rows = await db
          .select({ a: adAudiences, network: adNetworkConnections.network })
          .from(adAudiences)
          .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
          .where(
            and(
              eq(adAudiences.clientId, clientId),
              source_kind ? eq(adAudiences.sourceKind, source_kind) : undefined,
            ),
          )
          .orderBy(adAudiences.createdAt);
        return rows
          .filter(
            ({ a }) =>
              source_id === undefined || String(a.cohortId ?? a.journeyStageId ?? a.cadenceId) === source_id,
          )
          .map(({ a, network }) => audienceReply(a, network, service.adapters[network].minimumAudience));
      },
    );

    app.post(
      '/ad-networks/audiences',
      {
        config: { access: audienceWrite },
        schema: {
          tags: ['ad-networks'],
          summary:
            'Run a cohort, journey stage or cadence on a network: its matched audience, pushed by a job',
          body: adAudienceCreateBody,
          response: { 200: adAudienceSchema, 201: adAudienceSchema, ...errors },
        },
      },
      async (request, reply) => {
        const clientId = tenantOf(request).clientId;
        const { network, source_kind, source_id, pool } = request.body;
        const source = await sourceOf(db, clientId, source_kind, source_id, 'body.source_id');
        if (!source) throw httpError(404, `No such ${source_kind.replace('_', ' ')} in this client.`);
        const row = await activeConnectionOf(clientId, network);
        if (!row.adAccountId)
          throw httpError(409, `Choose a ${label(network)} ad account in Settings › Ad networks first.`);
        const minimum = service.adapters[network].minimumAudience;
        const [existing] = await db
          .select()
          .from(adAudiences)
          .where(
            and(
              eq(adAudiences.connectionId, row.id),
              source.set.cohortId ? eq(adAudiences.cohortId, source.set.cohortId) : undefined,
              source.set.journeyStageId
                ? eq(adAudiences.journeyStageId, source.set.journeyStageId)
                : undefined,
              source.set.cadenceId !== null ? eq(adAudiences.cadenceId, source.set.cadenceId) : undefined,
            ),
          );
        const audience =
          existing ??
          (
            await db
              .insert(adAudiences)
              .values({
                clientId,
                connectionId: row.id,
                sourceKind: source_kind,
                ...source.set,
                name: source.name,
                adAccountId: row.adAccountId,
                poolWhenSmall: pool ?? false,
                createdBy: authOf(request).user.id,
              })
              .returning()
          )[0];
        // Sent again for an existing audience, `pool` changes the owner's choice; the push re-decides.
        if (existing && pool !== undefined && pool !== existing.poolWhenSmall) {
          await db
            .update(adAudiences)
            .set({ poolWhenSmall: pool, updatedAt: new Date() })
            .where(eq(adAudiences.id, existing.id));
          existing.poolWhenSmall = pool;
        }
        if (!audience) throw new Error('audience insert returned nothing');
        await service.requestPush(audience.id);
        reply.code(existing ? 200 : 201);
        return audienceReply({ ...audience, state: 'queued', pushError: null }, network, minimum);
      },
    );

    app.post(
      '/ad-networks/audiences/:id/push',
      {
        config: { access: audienceWrite },
        schema: {
          tags: ['ad-networks'],
          summary: 'Push an audience now: only the members added or removed since the last push are sent',
          params: adAudienceIdParam,
          response: { 200: adAudienceSchema, ...errors },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const [found] = await db
          .select({ a: adAudiences, network: adNetworkConnections.network })
          .from(adAudiences)
          .innerJoin(adNetworkConnections, eq(adNetworkConnections.id, adAudiences.connectionId))
          .where(and(eq(adAudiences.id, request.params.id), eq(adAudiences.clientId, clientId)));
        if (!found) throw httpError(404, 'Audience not found.');
        await activeConnectionOf(clientId, found.network);
        await service.requestPush(found.a.id);
        return audienceReply(
          { ...found.a, state: 'queued', pushError: null },
          found.network,
          service.adapters[found.network].minimumAudience,
        );
      },
    );
  };
}
