import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { sql } from 'drizzle-orm';
import { z } from 'zod';
import { messageReply } from '@rally/shared/schemas/auth';
import {
  holdoutBody,
  holdoutListSchema,
  holdoutSchema,
  liftQuery,
  liftReportSchema,
} from '@rally/shared/schemas/lift';
import type { Holdout, LiftQuery, LiftReport } from '@rally/shared/schemas/lift';
import { tenantOf } from '../../lib/access.ts';
import { streamCsv } from '../../lib/csv-export.ts';
import type { CsvColumn } from '../../lib/csv-export.ts';
import { httpError } from '../../lib/errors.ts';
import type { Db } from '../../db/client.ts';
import { num, rowsOf } from '../reports/report-sql.ts';
import { liftReport } from './report.ts';
import {
  assignmentPages,
  attributionWindowDays,
  holdoutList,
  liftSums,
  scopeCondition,
  setHoldoutPercent,
} from './repository.ts';
import type { AssignmentRow, LiftScope } from './repository.ts';
import { storedAssignmentPages, storedLiftSums } from './store.ts';

const clientIdParam = z.object({ clientId: z.uuid('must be the id (UUID) of a client') });
const cadenceParams = clientIdParam.extend({
  cadenceId: z.coerce
    .number({ error: 'must be the id (a number) of a cadence' })
    .int('must be the id (a number) of a cadence')
    .min(1, 'must be the id (a number) of a cadence')
    .max(2_147_483_647, 'must be the id (a number) of a cadence'),
});
const reports = { permission: 'reports.read' } as const;
const OWNER = 'purple_owner';
export const HOLDOUT_OWNER_ONLY =
  'Access Denied: only an owner of this client can change a holdout, because held-out prospects are shown no ads.';

const ASSIGNMENT_COLUMNS: CsvColumn<AssignmentRow>[] = [
  { header: 'Target id', value: (r) => r.target_id },
  { header: 'Prospect', value: (r) => r.prospect_name },
  { header: 'E-mail', value: (r) => r.email },
  { header: 'Cadence', value: (r) => r.cadence },
  { header: 'Group', value: (r) => (r.group === 'held_out' ? 'held out' : 'exposed') },
  { header: 'Entered', value: (r) => r.entered_at },
  { header: 'Meeting in window', value: (r) => (r.meeting ? 'yes' : 'no') },
  { header: 'Opportunities created in window', value: (r) => r.opportunities },
  { header: 'Pipeline created in window', value: (r) => r.pipeline },
  { header: 'Won revenue in window', value: (r) => r.won },
];

function toHoldout(r: Record<string, unknown>): Holdout {
  return {
    cadence_id: num(r.id),
    name: String(r.cohort_name ?? r.name),
    kind: r.kind === 'cohort' ? 'cohort' : 'sequence',
    cohort_id: r.cohort_id ? String(r.cohort_id) : null,
    holdout_percent: num(r.holdout_percent),
    exposed: num(r.exposed),
    held_out: num(r.held_out),
  };
}

function scopeOf(q: LiftQuery): LiftScope {
  if (q.scope === 'cadence') return { kind: 'cadence', cadenceId: Number(q.id) };
  if (q.scope === 'cohort') return { kind: 'cohort', cohortId: String(q.id) };
  return { kind: 'client' };
}

async function scopeName(db: Db, clientId: string, scope: LiftScope): Promise<string> {
  const row =
    scope.kind === 'cadence'
      ? rowsOf(
          await db.execute(
            sql`select name from cadences where id = ${scope.cadenceId} and client_id = ${clientId}`,
          ),
        )[0]
      : scope.kind === 'cohort'
        ? rowsOf(
            await db.execute(
              sql`select name from cohorts where id = ${scope.cohortId} and client_id = ${clientId}`,
            ),
          )[0]
        : rowsOf(await db.execute(sql`select name from clients where id = ${clientId}`))[0];
  return String(row?.name ?? '');
}

/**
 * Incrementality (issue 45): the lift report with its export, and each cadence's and cohort's
 * holdout share. The report reads as every report does (`reports.read`); a share is changed by
 * owners only, as it decides who is shown no ads.
 */
export const incrementalityRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db } = app;

  async function reportFor(clientId: string, q: LiftQuery): Promise<LiftReport> {
    const scope = scopeOf(q);
    const stored = await attributionWindowDays(db, clientId);
    const windowDays = q.window_days ?? stored;
    // The client's window reads the stored outcomes (store.ts); another one is counted from the facts.
    const sums =
      windowDays === stored
        ? await storedLiftSums(db, clientId, scope, windowDays)
        : await liftSums(db, clientId, scope, windowDays);
    if (!sums) throw httpError(404, `The ${q.scope} was not found.`);
    return liftReport(sums, {
      scope: { kind: q.scope, id: q.id ?? null, name: await scopeName(db, clientId, scope) },
      windowDays,
      minLiftPercent: q.min_lift,
    });
  }

  app.get(
    '/report/client/:clientId/lift',
    {
      config: { access: reports },
      schema: {
        tags: ['reports'],
        summary: 'What the ads changed: exposed against held-out targets, per 100, with 95 % intervals',
        description:
          'Targets assigned while their cadence or cohort had a holdout, each followed for `window_days` ' +
          '(the attribution window by default) after it entered: people with a meeting and with an ' +
          "opportunity created (Newcombe's interval), pipeline and won revenue (Welch's interval). " +
          'docs/reports.md "Lift".',
        params: clientIdParam,
        querystring: liftQuery,
        response: { 200: liftReportSchema, 404: messageReply },
      },
    },
    async (request) => reportFor(tenantOf(request).clientId, request.query),
  );

  app.get(
    '/report/client/:clientId/lift/export',
    {
      config: { access: reports },
      schema: {
        tags: ['reports'],
        summary: 'Every assigned target with its group and outcomes, as CSV (for your own analysis)',
        params: clientIdParam,
        querystring: liftQuery,
        response: { 200: z.string().describe('text/csv'), 404: messageReply },
      },
    },
    async (request, reply) => {
      const clientId = tenantOf(request).clientId;
      const q = request.query;
      const scope = scopeOf(q);
      const stored = await attributionWindowDays(db, clientId);
      const windowDays = q.window_days ?? stored;
      if (!(await scopeCondition(db, clientId, scope))) throw httpError(404, `The ${q.scope} was not found.`);
      const name = q.scope === 'client' ? 'client' : `${q.scope}-${q.id}`;
      return streamCsv(
        reply,
        `holdout-assignments-${name}-${windowDays}d.csv`,
        ASSIGNMENT_COLUMNS,
        windowDays === stored
          ? storedAssignmentPages(db, clientId, scope, windowDays)
          : assignmentPages(db, clientId, scope, windowDays),
      );
    },
  );

  app.get(
    '/rest/client/:clientId/holdouts',
    {
      config: { access: reports },
      schema: {
        tags: ['reports'],
        summary: 'Each cadence and cohort with its holdout share and its targets assigned to each group',
        params: clientIdParam,
        response: { 200: holdoutListSchema },
      },
    },
    async (request) => ({ items: (await holdoutList(db, tenantOf(request).clientId)).map(toHoldout) }),
  );

  app.put(
    '/rest/client/:clientId/holdouts/:cadenceId',
    {
      config: { access: { permission: 'cadence.write' } },
      schema: {
        tags: ['reports'],
        summary: "Set a cadence's or cohort's holdout share (0–50 %), owners only",
        description:
          'Targets that enter from now on are assigned at this share; those already assigned keep their ' +
          'group. A cohort is named by its hidden cadence (`cadence_id` in the list).',
        params: cadenceParams,
        body: holdoutBody,
        response: { 200: holdoutSchema, 403: messageReply, 404: messageReply },
      },
    },
    async (request) => {
      const tenant = tenantOf(request);
      if (tenant.role !== OWNER) throw httpError(403, HOLDOUT_OWNER_ONLY);
      const { cadenceId } = request.params;
      const done = await setHoldoutPercent(db, tenant.clientId, cadenceId, request.body.holdout_percent);
      if (!done) throw httpError(404, 'The cadence was not found.');
      const [row] = await holdoutList(db, tenant.clientId, cadenceId);
      if (!row) throw httpError(404, 'The cadence was not found.');
      return toHoldout(row);
    },
  );
};
