import type { FastifyInstance } from 'fastify';
import { uuidToBase58 } from '@rally/shared';
import type { EmailSnippetStatus, EmailSnippetTestBody, SnippetTest } from '@rally/shared/schemas/email-ads';
import { SNIPPET_TESTS_PER_HOUR } from '@rally/shared/schemas/email-ads';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import { cursorPages } from '../../db/cursor.ts';
import type { Row } from '../../db/cursor.ts';
import { adUrls } from '../tracking/index.ts';
import type { ExportRow } from './repository.ts';
import {
  cadenceOf,
  cohortCadence,
  exportStatement,
  recordTest,
  snippetFacts,
  testTarget,
} from './repository.ts';
import { snippetTestMail } from './test-mail.ts';

export const CADENCE_NOT_FOUND = 'Cadence not found.';
export const COHORT_NOT_FOUND = 'Cohort not found.';

/** What the cadence's "Add ads to your e-mails" step shows; null for another client's cadence. */
export async function snippetStatus(
  app: FastifyInstance,
  clientId: string,
  cadenceId: number,
  userId: string,
): Promise<EmailSnippetStatus | null> {
  const cadence = await cadenceOf(app.db, clientId, cadenceId);
  if (!cadence) return null;
  const facts = await snippetFacts(app.db, clientId, cadenceId, userId);
  return {
    cadence_id: cadence.id,
    cadence_name: cadence.name,
    ads_on: cadence.adsOn,
    targets: facts.targets,
    installed_at: facts.installedAt,
    preview_path: facts.previewContentId
      ? `/content/preview/${uuidToBase58(facts.previewContentId)}/email.png`
      : null,
    last_test: facts.lastTest
      ? {
          sent_at: facts.lastTest.sentAt,
          sent_to: facts.lastTest.sentTo,
          prospect_name: facts.lastTest.prospectName,
          opened_at: facts.lastTest.openedAt,
          clicked_at: facts.lastTest.clickedAt,
        }
      : null,
  };
}

/**
 * Sends the user a test e-mail of the cadence's snippet through the outbox: one of the cadence's
 * prospects' ad, with URLs marked as a test (they count nothing). At most SNIPPET_TESTS_PER_HOUR
 * per user; 409 when the cadence has no prospect or shows no ads.
 */
export async function sendSnippetTest(
  app: FastifyInstance,
  o: { clientId: string; cadenceId: number; user: { id: string; email: string }; body: EmailSnippetTestBody },
): Promise<{ sent: SnippetTest } | { retryAfterSeconds: number } | null> {
  const cadence = await cadenceOf(app.db, o.clientId, o.cadenceId);
  if (!cadence) return null;
  if (!cadence.adsOn) {
    throw httpError(
      409,
      'Ads are off for this cadence, so its e-mails would show an empty image. Switch ads on, then send the test.',
    );
  }
  const target = await testTarget(app.db, o.clientId, o.cadenceId);
  if (!target) {
    throw httpError(409, 'This cadence has no prospects yet. The test e-mail shows one of their ads.');
  }
  const test = await recordTest(
    app.db,
    {
      clientId: o.clientId,
      cadenceId: o.cadenceId,
      targetId: target.id,
      userId: o.user.id,
      sentTo: o.user.email,
    },
    SNIPPET_TESTS_PER_HOUR,
  );
  if ('retryAfterSeconds' in test) return test;
  const { image, click } = adUrls(app.config.publicUrl, target.token);
  await app.outbox.enqueue({
    clientId: o.clientId,
    ...snippetTestMail({
      to: o.user.email,
      cadenceName: cadence.name,
      prospectName: target.prospectName,
      imageUrl: `${image}?test=${test.id}`,
      clickUrl: `${click}?test=${test.id}`,
      alt: o.body.alt,
      label: o.body.label,
    }),
  });
  return {
    sent: {
      sent_at: test.sentAt,
      sent_to: o.user.email,
      prospect_name: target.prospectName,
      opened_at: null,
      clicked_at: null,
    },
  };
}

/** The 429's words for a user over the hourly limit. */
export function tooManyTests(retryAfterSeconds: number): string {
  const minutes = Math.ceil(retryAfterSeconds / 60);
  return `You sent ${SNIPPET_TESTS_PER_HOUR} test e-mails in the last hour. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.`;
}

/** The bulk export's columns: who the target is, and the URLs to put in any other tool. */
export function exportColumns(publicUrl: string): CsvColumn<ExportRow>[] {
  const urls = (r: ExportRow) => adUrls(publicUrl, r.token);
  return [
    { header: 'first_name', value: (r) => r.first_name },
    { header: 'last_name', value: (r) => r.last_name },
    { header: 'email', value: (r) => r.email },
    { header: 'title', value: (r) => r.title },
    { header: 'company', value: (r) => r.company },
    { header: 'sales_rep', value: (r) => r.rep },
    { header: 'day_number', value: (r) => r.day_number },
    { header: 'active', value: (r) => r.is_active },
    { header: 'ad_image_url', value: (r) => urls(r).image },
    { header: 'click_url', value: (r) => urls(r).click },
  ];
}

async function* asExportRows(pages: AsyncIterable<Row[]>): AsyncGenerator<ExportRow[]> {
  for await (const page of pages) yield page as ExportRow[];
}

/** A cadence's targets for the bulk export, streamed page by page; null when not the client's. */
export async function cadenceExport(app: FastifyInstance, clientId: string, cadenceId: number) {
  const cadence = await cadenceOf(app.db, clientId, cadenceId);
  if (!cadence) return null;
  return {
    name: cadence.name,
    pages: asExportRows(cursorPages(app.db, exportStatement(clientId, cadenceId))),
  };
}

/** A cohort's members (its cadence's targets) for the bulk export; null when not the client's. */
export async function cohortExport(app: FastifyInstance, clientId: string, cohortId: string) {
  const cohort = await cohortCadence(app.db, clientId, cohortId);
  if (!cohort) return null;
  return {
    name: cohort.name,
    pages: asExportRows(cursorPages(app.db, exportStatement(clientId, cohort.cadenceId))),
  };
}

/** A file name from a cadence's or cohort's name: letters, digits and dashes. */
export function exportName(kind: 'cadence' | 'cohort', name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[^\w\s-]/g, '')
    .trim()
    .replace(/[\s_]+/g, '-')
    .toLowerCase()
    .slice(0, 60);
  return `${kind}-${slug || 'targets'}-ad-urls.csv`;
}
