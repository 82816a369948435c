import { eq } from 'drizzle-orm';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { messageReply } from '@rally/shared/schemas/auth';
import { adAudiencePreviewQuery, adAudiencePreviewReply } from '@rally/shared/schemas/ad-networks';
import type { AdAudiencePreview } from '@rally/shared/schemas/ad-networks';
import { adNetworkConnections } from '../../db/schema/index.ts';
import { tenantOf } from '../../lib/access.ts';
import { httpError } from '../../lib/errors.ts';
import { sourceOf } from './audience-sources.ts';
import { poolCandidate, poolHashes, sourceHashes, sourceWords } from './pool.ts';
import type { AudienceSource } from './pool.ts';
import type { AdNetwork } from './port.ts';
import type { AdNetworkService } from './service.ts';

const NAMES: Record<AdNetwork, string> = { meta: 'Meta', linkedin: 'LinkedIn', google: 'Google Ads' };

/**
 * Placements that need more than the adapter's minimum, in words. The minimums themselves live on
 * each adapter (`minimumAudience`), checked against the networks' documentation on 2026-12-06:
 * - Meta 100 matched people: Meta's Customer File Custom Audiences guide
 *   (developers.facebook.com/docs/marketing-api/audiences/guides/custom-audiences), as restated by
 *   Salesforce's Meta connector ("Meta requires a minimum of 100 matched users").
 * - LinkedIn 300 matched members: "Requirements for contact targeting lists"
 *   (linkedin.com/help/lms/answer/a1489764), "a minimum of 300 matched members for your campaign to serve".
 * - Google 100 active users for Search and Display, 1,000 for YouTube: Google's audience-list rule
 *   (support.google.com/ads-data-hub/answer/9935747).
 */
const MINIMUM_NOTES: Record<AdNetwork, string | null> = {
  meta: null,
  linkedin: null,
  google: 'YouTube placements need at least 1,000 active matched people.',
};

/**
 * Before launch (issue 39, decision 0034): a source's size on each connected network beside the
 * network's minimum, and, under it, the pool Rally proposes (a stage's cohort, a cadence's rep's
 * cadences) with its size. Counted with each network's own hashing (Google drops Gmail dots).
 */
export function adAudiencePreviewRoute(service: AdNetworkService): FastifyPluginAsyncZod {
  return async (app) => {
    const { db } = app;
    app.get(
      '/ad-networks/audiences/preview',
      {
        config: { access: 'member' },
        schema: {
          tags: ['ad-networks'],
          summary:
            'A cohort’s, stage’s or cadence’s size per network beside the minimum, and the pool proposed',
          querystring: adAudiencePreviewQuery,
          response: { 200: adAudiencePreviewReply, 404: messageReply },
        },
      },
      async (request) => {
        const clientId = tenantOf(request).clientId;
        const { source_kind, source_id } = request.query;
        const found = await sourceOf(db, clientId, source_kind, source_id, 'querystring.source_id');
        if (!found) throw httpError(404, `No such ${source_kind.replace('_', ' ')} in this client.`);
        const source: AudienceSource = { clientId, sourceKind: source_kind, ...found.set };
        const words = sourceWords({ sourceKind: source_kind, name: found.name });
        const connections = await db
          .select({ network: adNetworkConnections.network, isActive: adNetworkConnections.isActive })
          .from(adNetworkConnections)
          .where(eq(adNetworkConnections.clientId, clientId));
        const candidate = source_kind === 'cohort' ? null : await poolCandidate(db, source);
        const out: AdAudiencePreview[] = [];
        for (const { network } of connections.filter((c) => c.isActive)) {
          const adapter = service.adapters[network];
          const minimum = adapter.minimumAudience;
          const count = (await sourceHashes(db, source, adapter.hashEmail, service.suppressionKey)).size;
          const pool = candidate
            ? {
                kind: candidate.kind,
                name: candidate.name,
                count: (await poolHashes(db, source, candidate, adapter.hashEmail, service.suppressionKey))
                  .size,
              }
            : null;
          const name = NAMES[network];
          const base = {
            network,
            minimum_audience: minimum,
            minimum_note: MINIMUM_NOTES[network],
            count,
            pool,
          };
          if (count >= minimum)
            out.push({ ...base, proposal: 'run', explanation: `${count} people; ${name} needs ${minimum}.` });
          else if (pool && pool.count >= minimum)
            out.push({
              ...base,
              proposal: 'pool',
              explanation: `${words} has ${count} people; ${name} needs ${minimum}. Pooled with ${pool.name} (${pool.count} people), its ads reach the whole pool until ${words} reaches ${minimum} on its own; then it stops pooling.`,
            });
          else
            out.push({
              ...base,
              proposal: 'hold',
              explanation: pool
                ? `${words} has ${count} people and ${pool.name} ${pool.count}; ${name} needs ${minimum}. It will be held until one of them reaches it.`
                : `${words} has ${count} people; ${name} needs ${minimum}. It will be held until it reaches it.`,
            });
        }
        return out;
      },
    );
  };
}
