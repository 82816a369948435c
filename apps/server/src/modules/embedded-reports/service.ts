import type {
  EmbeddedReport,
  EmbeddedReportCreated,
  EmbeddedReportKind,
  EmbeddedReportView,
  embeddedReportCreateBody,
} from '@rally/shared/schemas/embedded-reports';
import { EMBEDDED_MAX_ROWS } from '@rally/shared/schemas/embedded-reports';
import type { z } from 'zod';
import type { Db } from '../../db/client.ts';
import { hashToken, randomToken, safeEqual } from '../../lib/crypto.ts';
import { httpError } from '../../lib/errors.ts';
import { pipelineGenerated, pipelineProgressed, summary, valueReport } from '../reports/service.ts';
import { byId, byTokenHash, insert, listOf, recordView, revoke } from './repository.ts';
import type { EmbeddedReportRow } from './repository.ts';

const DAY_MS = 86_400_000;

/** SPEC.md §8 "Bad token link: Error 'Invalid link'". */
export const INVALID_LINK = 'Invalid link: this embedded report link is not known.';
export const EXPIRED_LINK = 'This embedded report link has expired. Ask its owner for a new one.';
export const REVOKED_LINK = 'This embedded report link has been revoked. Ask its owner for a new one.';

function statusOf(row: { expiresAt: Date; revokedAt: Date | null }, now: Date): EmbeddedReport['status'] {
  if (row.revokedAt) return 'revoked';
  return row.expiresAt <= now ? 'expired' : 'active';
}

function toItem(row: EmbeddedReportRow, now: Date): EmbeddedReport {
  return {
    id: row.id,
    name: row.name,
    report: row.report,
    range_days: row.rangeDays,
    status: statusOf(row, now),
    created_at: row.createdAt.toISOString(),
    created_by: row.createdByName,
    expires_at: row.expiresAt.toISOString(),
    revoked_at: row.revokedAt?.toISOString() ?? null,
    views: row.views,
    last_viewed_at: row.lastViewedAt?.toISOString() ?? null,
  };
}

/** The link a saved report is opened by: the token in the fragment, so it is never sent in a URL. */
export const embedUrl = (publicUrl: string, token: string) => `${publicUrl}/embed/reports#${token}`;

export async function listEmbedded(db: Db, clientId: string, now = new Date()) {
  return { items: (await listOf(db, clientId)).map((r) => toItem(r, now)) };
}

export async function createEmbedded(
  db: Db,
  publicUrl: string,
  clientId: string,
  userId: string,
  body: z.output<typeof embeddedReportCreateBody>,
  now = new Date(),
): Promise<EmbeddedReportCreated> {
  const token = randomToken();
  const id = await insert(db, {
    clientId,
    name: body.name,
    report: body.report,
    rangeDays: body.range_days,
    tokenHash: hashToken(token),
    createdBy: userId,
    expiresAt: new Date(now.getTime() + body.expires_in_days * DAY_MS),
  });
  const row = await byId(db, clientId, id);
  if (!row) throw new Error('embedded report not found after insert');
  return { ...toItem(row, now), token, url: embedUrl(publicUrl, token) };
}

export async function revokeEmbedded(db: Db, clientId: string, id: string, now = new Date()) {
  if (!(await revoke(db, clientId, id, now))) throw httpError(404, 'This embedded report was not found.');
  const row = await byId(db, clientId, id);
  if (!row) throw httpError(404, 'This embedded report was not found.');
  return toItem(row, now);
}

async function reportData(
  db: Db,
  clientId: string,
  kind: EmbeddedReportKind,
  rangeDays: number,
  now: Date,
): Promise<EmbeddedReportView['data']> {
  const to = Math.floor(now.getTime() / 1000);
  const q = { from: to - rangeDays * 86_400, to };
  switch (kind) {
    case 'summary':
      return { kind, summary: await summary(db, clientId, q) };
    case 'value_report':
      return { kind, value_report: await valueReport(db, clientId, q) };
    case 'pipeline_generated': {
      const r = await pipelineGenerated(db, clientId, { ...q, page: 1, page_size: EMBEDDED_MAX_ROWS });
      return { kind, pipeline_generated: r };
    }
    case 'pipeline_progressed': {
      const r = await pipelineProgressed(db, clientId, { ...q, page: 1, page_size: EMBEDDED_MAX_ROWS });
      return { kind, pipeline_progressed: r };
    }
  }
}

/**
 * What a link shows, found by its token alone (and, when the caller names it, the saved report's
 * id, which must match): 404 for a token that is not known, 410 when revoked or expired. The data
 * is always that of the link's own client.
 */
export async function viewEmbedded(
  db: Db,
  token: string,
  id: string | undefined,
  now = new Date(),
): Promise<EmbeddedReportView> {
  const found = await byTokenHash(db, hashToken(token));
  if (!found || (id !== undefined && !safeEqual(found.link.id, id.toLowerCase())))
    throw httpError(404, INVALID_LINK);
  const { link, clientName } = found;
  if (link.revokedAt) throw httpError(410, REVOKED_LINK);
  if (link.expiresAt <= now) throw httpError(410, EXPIRED_LINK);
  const data = await reportData(db, link.clientId, link.report, link.rangeDays, now);
  await recordView(db, link.id, now);
  return {
    id: link.id,
    name: link.name,
    client_name: clientName,
    report: link.report,
    range_days: link.rangeDays,
    expires_at: link.expiresAt.toISOString(),
    generated_at: now.toISOString(),
    data,
  };
}
