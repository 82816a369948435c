import type { FastifyInstance } from 'fastify';
import { zipSync } from 'fflate';
import { unescapeHtml } from '@rally/shared';
import type {
  Campaign,
  CampaignListReply,
  CampaignStatus,
  PbaCohortReply,
} from '@rally/shared/schemas/campaigns';
import { AD_SIZES } from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import { fieldError, httpError } from '../../lib/errors.ts';
import { adImageFor } from '../creative/index.ts';
import * as cohortRepo from '../cohorts/repository.ts';
import { toApi as cohortToApi } from '../cohorts/service.ts';
import { parsePeople } from './people.ts';
import * as repo from './repository.ts';
import type { CampaignRow } from './repository.ts';

const NOT_FOUND = 'Campaign not found.';
const COHORT_NOT_FOUND = 'Cohort not found.';
const COHORT_ARCHIVED =
  'This cohort is archived and read-only: restore it (PATCH /rest/cohort/{id}/archive with archived false) before planning its campaigns.';
const ENDED = 'This campaign has ended and is read-only: make a new campaign for another flight.';

const today = () => new Date().toISOString().slice(0, 10);

export function toApi(row: CampaignRow, now = today()): Campaign {
  return {
    id: row.id,
    client_id: row.clientId,
    cohort_id: row.cohortId,
    cohort_name: row.cohortName,
    name: row.name,
    status: row.status,
    starts_on: row.startsOn,
    ends_on: row.endsOn,
    live: row.status === 'active' && row.startsOn <= now && now <= row.endsOn,
    content_id: row.contentId,
    content_name: row.contentName === null ? null : unescapeHtml(row.contentName),
    download_url: row.contentId ? `/v1/download/${row.id}` : null,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}

/** A file name of ASCII letters, digits and dashes from a campaign name. */
export function fileSlug(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .toLowerCase()
    .replace(/[\s_-]+/g, '-')
    .slice(0, 60)
    .replace(/^-+|-+$/g, '');
  return slug || 'campaign';
}

export function createCampaignService(app: FastifyInstance) {
  const db: Db = app.db;

  async function read(clientId: string, id: string): Promise<Campaign> {
    const row = await repo.findCampaign(db, clientId, id);
    if (!row) throw httpError(404, NOT_FOUND);
    return toApi(row);
  }

  /** Content must be this client's and not archived: 422 naming body.content_id otherwise. */
  async function checkContent(tx: repo.Tx, clientId: string, contentId: string): Promise<void> {
    const found = await repo.contentOf(tx, clientId, contentId);
    if (!found) throw fieldError('body.content_id', 'is not a content item of this client');
    if (found.isArchived) throw fieldError('body.content_id', 'is archived: unarchive it or pick another');
  }

  function checkActive(status: CampaignStatus, contentId: string | null): void {
    if (status === 'active' && !contentId) {
      throw fieldError('body.content_id', 'is required before the campaign can be active');
    }
  }

  return {
    read,

    async list(
      clientId: string,
      q: { cohort_id?: string | undefined; page: number; page_size: number },
    ): Promise<CampaignListReply> {
      const { rows, total } = await repo.listCampaigns(db, clientId, {
        cohortId: q.cohort_id,
        page: q.page,
        pageSize: q.page_size,
      });
      const now = today();
      return { items: rows.map((r) => toApi(r, now)), total, page: q.page, page_size: q.page_size };
    },

    async create(
      clientId: string,
      userId: string | null,
      body: {
        cohort_id: string;
        name: string;
        starts_on: string;
        ends_on: string;
        status: CampaignStatus;
        content_id?: string | null | undefined;
      },
      fixedId?: string,
    ): Promise<Campaign> {
      const id = await db.transaction(async (tx) => {
        const cohort = await repo.cohortOf(tx, clientId, body.cohort_id);
        if (!cohort) throw httpError(404, COHORT_NOT_FOUND);
        if (cohort.status === 'archived') throw httpError(409, COHORT_ARCHIVED);
        if (body.content_id) await checkContent(tx, clientId, body.content_id);
        // Left out: the cohort's own content (what its ad tags show); null clears it.
        const contentId = body.content_id === undefined ? cohort.contentId : body.content_id;
        checkActive(body.status, contentId);
        return repo.insertCampaign(tx, {
          ...(fixedId ? { id: fixedId } : {}),
          clientId,
          cohortId: cohort.id,
          name: body.name,
          status: body.status,
          startsOn: body.starts_on,
          endsOn: body.ends_on,
          contentId,
          createdBy: userId,
        });
      });
      return read(clientId, id);
    },

    async update(
      clientId: string,
      id: string,
      body: {
        name?: string | undefined;
        starts_on?: string | undefined;
        ends_on?: string | undefined;
        status?: CampaignStatus | undefined;
        content_id?: string | null | undefined;
      },
    ): Promise<Campaign> {
      await db.transaction(async (tx) => {
        const campaign = await repo.lockCampaign(tx, clientId, id);
        if (!campaign) throw httpError(404, NOT_FOUND);
        const cohort = await repo.cohortOf(tx, clientId, campaign.cohortId);
        if (!cohort) throw httpError(404, NOT_FOUND);
        if (cohort.status === 'archived') throw httpError(409, COHORT_ARCHIVED);
        if (campaign.status === 'ended') throw httpError(409, ENDED);
        const startsOn = body.starts_on ?? campaign.startsOn;
        const endsOn = body.ends_on ?? campaign.endsOn;
        if (endsOn <= startsOn) {
          throw body.ends_on !== undefined
            ? fieldError('body.ends_on', `must be after starts_on (${startsOn})`)
            : fieldError('body.starts_on', `must be before ends_on (${endsOn})`);
        }
        if (body.content_id) await checkContent(tx, clientId, body.content_id);
        const contentId = body.content_id === undefined ? campaign.contentId : body.content_id;
        const status = body.status ?? campaign.status;
        if (status === 'active' && !contentId) {
          throw fieldError(
            body.content_id === null ? 'body.content_id' : 'body.status',
            body.content_id === null
              ? 'cannot be cleared while the campaign is active'
              : 'cannot be active without content: choose its content_id first',
          );
        }
        await repo.updateCampaign(tx, campaign, {
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.starts_on !== undefined ? { startsOn: body.starts_on } : {}),
          ...(body.ends_on !== undefined ? { endsOn: body.ends_on } : {}),
          ...(body.status !== undefined ? { status: body.status } : {}),
          ...(body.content_id !== undefined ? { contentId: body.content_id } : {}),
        });
      });
      return read(clientId, id);
    },

    /**
     * `GET /download/{id}`: the campaign's ads at the four sizes as a zip (stored, not deflated:
     * PNGs are compressed already), each drawn by the ad renderer and its cache, as the content's
     * preview and the ad tags are, with the content's own assignee (no target's rep).
     */
    async download(clientId: string, id: string): Promise<{ filename: string; bytes: Uint8Array } | null> {
      const row = await repo.findCampaign(db, clientId, id);
      if (!row) return null;
      if (!row.contentId) {
        throw httpError(409, 'This campaign has no content yet: choose its content to download its ads.');
      }
      const slug = fileSlug(row.name);
      const files: Record<string, [Uint8Array, { level: 0 }]> = {};
      for (const size of AD_SIZES) {
        const ad = await adImageFor(app, { contentId: row.contentId, size });
        if (!ad) throw httpError(409, 'The content of this campaign is gone: choose its content again.');
        files[`${slug}-${size}.png`] = [ad.png, { level: 0 }];
      }
      return { filename: `${slug}-ads.zip`, bytes: zipSync(files) };
    },

    /** `POST /rest/content/parse_pba_data` with csv. */
    parsePeople(csv: string) {
      const { people: _people, ...reply } = parsePeople(csv);
      return reply;
    },

    /**
     * `POST /rest/content/pba` with csv: a cohort (source csv) of the list's usable people, each a
     * prospect (found by e-mail or name and company, else made as a file prospect) with a target of
     * the cohort's cadence, so their ad tags run through the same engine. One transaction.
     */
    async createPeopleCohort(
      clientId: string,
      userId: string,
      body: { name: string; csv: string; content_id?: string | null | undefined },
    ): Promise<PbaCohortReply> {
      const parsed = parsePeople(body.csv);
      if (!parsed.usable) {
        throw fieldError('body.csv', 'has no usable row: each person needs an email, or a name and company');
      }
      const { id, members } = await db.transaction(async (tx) => {
        if (body.content_id) await checkContent(tx, clientId, body.content_id);
        const cohortId = await cohortRepo.insertCohort(tx, {
          clientId,
          name: body.name,
          sourceKind: 'csv',
          crmListId: null,
          filters: {},
          contentId: body.content_id ?? null,
          createdBy: userId,
        });
        const cohort = await cohortRepo.findCohortById(tx, cohortId);
        if (!cohort) throw new Error('the new cohort is gone');
        const prospectIds = await repo.prospectsForPeople(tx, clientId, parsed.people);
        const written = await repo.addMembers(tx, cohort, prospectIds);
        const counts = await cohortRepo.memberCounts(tx, cohortId);
        await cohortRepo.setSync(tx, cohortId, {
          ...counts,
          syncState: 'done',
          syncError: null,
          syncProgress: { done: counts.size, total: counts.size },
          lastSyncedAt: new Date(),
        });
        return { id: cohortId, members: written };
      });
      const row = await cohortRepo.findCohort(db, clientId, id);
      if (!row) throw httpError(404, COHORT_NOT_FOUND);
      return { cohort: cohortToApi(row), members, skipped: parsed.unusable };
    },
  };
}

export type CampaignService = ReturnType<typeof createCampaignService>;
