import { and, eq, inArray, isNull, or, sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { SdrNotifications, SdrNotificationsBody } from '@rally/shared/schemas/sdr-notifications';
import type { Db } from '../../db/client.ts';
import { salesReps, sdrNotificationSettings } from '../../db/schema/index.ts';
import { httpError } from '../../lib/errors.ts';
import type { Outbox } from '../mail/outbox.ts';

type Row = Record<string, unknown>;
const rowsOf = (r: unknown) => (r as { rows: Row[] }).rows;
const DAY_MS = 86_400_000;
const PERIOD_MS = { daily: DAY_MS, weekly: 7 * DAY_MS } as const;
const fullName = (first: string, last: string) => `${first} ${last}`.trim();

export type SdrNotificationService = {
  list(clientId: string): Promise<SdrNotifications>;
  save(clientId: string, userId: string, body: SdrNotificationsBody): Promise<SdrNotifications>;
  /** A target became a superprospect: e-mail its rep when they asked for it. */
  onSuper(clientId: string, item: { target_id: string; sales_rep_id: string | null }): Promise<void>;
  /** Sends every digest that is due at `now`; returns how many e-mails were queued. */
  runDigests(now?: Date): Promise<number>;
};

/**
 * SDR notifications (SPEC.md §7): settings per rep, the superprospect e-mail (called from the
 * tracking module when a target becomes super) and the daily or weekly digest (a queue job). Every
 * e-mail goes through the outbox, so it is stored before it is sent and sent once.
 */
export function createSdrNotificationService(deps: {
  db: Db;
  outbox: Outbox;
  publicUrl: string;
  log: FastifyBaseLogger;
}): SdrNotificationService {
  const { db, outbox } = deps;
  const link = (path: string, clientId: string) =>
    `${deps.publicUrl}${path}${path.includes('?') ? '&' : '?'}client_id=${clientId}`;

  async function list(clientId: string): Promise<SdrNotifications> {
    const rows = await db
      .select({
        id: salesReps.id,
        firstName: salesReps.firstName,
        lastName: salesReps.lastName,
        email: salesReps.email,
        superEmail: sdrNotificationSettings.superEmail,
        digest: sdrNotificationSettings.digest,
        lastDigestAt: sdrNotificationSettings.lastDigestAt,
      })
      .from(salesReps)
      .leftJoin(sdrNotificationSettings, eq(sdrNotificationSettings.salesRepId, salesReps.id))
      .where(and(eq(salesReps.clientId, clientId), eq(salesReps.isActive, true)))
      .orderBy(salesReps.firstName, salesReps.lastName, salesReps.id);
    return {
      reps: rows.map((r) => ({
        sales_rep_id: r.id,
        name: fullName(r.firstName, r.lastName) || r.email || 'Unnamed rep',
        email: r.email,
        super_email: r.superEmail ?? false,
        digest: r.digest ?? 'off',
        last_digest_at: r.lastDigestAt ? r.lastDigestAt.toISOString() : null,
      })),
    };
  }

  async function save(clientId: string, userId: string, body: SdrNotificationsBody) {
    const ids = [...new Set(body.reps.map((r) => r.sales_rep_id))];
    const found = await db
      .select({ id: salesReps.id })
      .from(salesReps)
      .where(and(eq(salesReps.clientId, clientId), inArray(salesReps.id, ids)));
    if (found.length !== ids.length) throw httpError(404, 'Sales rep not found.');
    await db.transaction(async (tx) => {
      for (const r of body.reps) {
        await tx
          .insert(sdrNotificationSettings)
          .values({
            salesRepId: r.sales_rep_id,
            clientId,
            superEmail: r.super_email,
            digest: r.digest,
            updatedBy: userId,
          })
          .onConflictDoUpdate({
            target: sdrNotificationSettings.salesRepId,
            set: { superEmail: r.super_email, digest: r.digest, updatedBy: userId, updatedAt: new Date() },
          });
      }
    });
    return list(clientId);
  }

  async function onSuper(clientId: string, item: { target_id: string; sales_rep_id: string | null }) {
    if (!item.sales_rep_id) return;
    const [r] = rowsOf(
      await db.execute(sql`
        select r.email, r.first_name, p.first_name as p_first, p.last_name as p_last, p.title,
               co.name as company, cd.name as cadence, t.impressions, t.clicks
          from sdr_notification_settings s
          join sales_reps r on r.id = s.sales_rep_id and r.client_id = ${clientId}
          join targets t on t.id = ${item.target_id} and t.client_id = ${clientId}
          join prospects p on p.id = t.prospect_id
          join cadences cd on cd.id = t.cadence_id
          left join companies co on co.id = p.company_id
         where s.sales_rep_id = ${item.sales_rep_id} and s.client_id = ${clientId}
           and s.super_email and r.email is not null and r.is_active`),
    );
    if (!r) return;
    const who = fullName(String(r.p_first), String(r.p_last)) || 'A prospect';
    const at = r.company ? ` at ${String(r.company)}` : '';
    await outbox.enqueue({
      clientId,
      to: String(r.email),
      subject: `${who}${at} is now a superprospect`,
      text: [
        `Hi ${String(r.first_name) || 'there'},`,
        '',
        `${who}${r.title ? ` (${String(r.title)})` : ''}${at} just became a superprospect in ${String(r.cadence)}:`,
        `${Number(r.impressions)} ad impressions and ${Number(r.clicks)} clicks so far. Now is a good time to reach out.`,
        '',
        `See the activity: ${link('/feed', clientId)}`,
        `Change these e-mails: ${link('/client-settings/notifications', clientId)}`,
      ].join('\n'),
    });
  }

  async function digestFor(
    row: { salesRepId: string; clientId: string; digest: 'daily' | 'weekly'; lastDigestAt: Date | null },
    now: Date,
  ): Promise<boolean> {
    const from = row.lastDigestAt ?? new Date(now.getTime() - PERIOD_MS[row.digest]);
    // Claimed first: two workers (or a re-run) never send the same period twice.
    const claimed = await db
      .update(sdrNotificationSettings)
      .set({ lastDigestAt: now })
      .where(
        and(
          eq(sdrNotificationSettings.salesRepId, row.salesRepId),
          row.lastDigestAt
            ? eq(sdrNotificationSettings.lastDigestAt, row.lastDigestAt)
            : isNull(sdrNotificationSettings.lastDigestAt),
        ),
      )
      .returning({ id: sdrNotificationSettings.salesRepId });
    if (claimed.length === 0) return false;
    const [rep] = rowsOf(
      await db.execute(sql`
        select r.email, r.first_name, r.is_active from sales_reps r where r.id = ${row.salesRepId}`),
    );
    if (!rep?.email || !rep.is_active) return false;
    const supers = rowsOf(
      await db.execute(sql`
        select trim(p.first_name || ' ' || p.last_name) as name, co.name as company, cd.name as cadence
          from targets t
          join prospects p on p.id = t.prospect_id
          join cadences cd on cd.id = t.cadence_id
          left join companies co on co.id = p.company_id
         where t.client_id = ${row.clientId} and t.sales_rep_id = ${row.salesRepId}
           and t.super_date >= ${from} and t.super_date < ${now}
         order by t.super_date desc limit 50`),
    );
    const [counts] = rowsOf(
      await db.execute(sql`
        select count(*) filter (where e.type = 'click') as clicks,
               count(*) filter (where e.type = 'view') as views,
               count(*) filter (where e.type = 'impression') as impressions
          from engagement_events e
          join targets t on t.id = e.target_id and t.client_id = ${row.clientId}
         where e.client_id = ${row.clientId} and t.sales_rep_id = ${row.salesRepId}
           and e.occurred_at >= ${from} and e.occurred_at < ${now}`),
    );
    const clicks = Number(counts?.clicks ?? 0);
    const views = Number(counts?.views ?? 0);
    const impressions = Number(counts?.impressions ?? 0);
    // Nothing happened: no e-mail (the period is still counted as covered).
    if (supers.length === 0 && clicks + views + impressions === 0) return false;
    const period = row.digest === 'daily' ? 'day' : 'week';
    await outbox.enqueue({
      clientId: row.clientId,
      to: String(rep.email),
      subject: `Your ${row.digest} Rally digest: ${supers.length} new superprospect${supers.length === 1 ? '' : 's'}`,
      text: [
        `Hi ${String(rep.first_name) || 'there'},`,
        '',
        `Your prospects this ${period}: ${impressions} ad impressions, ${clicks} clicks, ${views} landing page views.`,
        '',
        supers.length
          ? `New superprospects:\n${supers
              .map(
                (s) =>
                  `- ${String(s.name)}${s.company ? ` (${String(s.company)})` : ''}, ${String(s.cadence)}`,
              )
              .join('\n')}`
          : 'No new superprospect.',
        '',
        `See the activity: ${link('/feed', row.clientId)}`,
        `Change these e-mails: ${link('/client-settings/notifications', row.clientId)}`,
      ].join('\n'),
    });
    return true;
  }

  async function runDigests(now = new Date()) {
    const due = await db
      .select({
        salesRepId: sdrNotificationSettings.salesRepId,
        clientId: sdrNotificationSettings.clientId,
        digest: sdrNotificationSettings.digest,
        lastDigestAt: sdrNotificationSettings.lastDigestAt,
      })
      .from(sdrNotificationSettings)
      .where(
        or(
          and(
            eq(sdrNotificationSettings.digest, 'daily'),
            or(
              isNull(sdrNotificationSettings.lastDigestAt),
              sql`${sdrNotificationSettings.lastDigestAt} <= ${new Date(now.getTime() - PERIOD_MS.daily)}`,
            ),
          ),
          and(
            eq(sdrNotificationSettings.digest, 'weekly'),
            or(
              isNull(sdrNotificationSettings.lastDigestAt),
              sql`${sdrNotificationSettings.lastDigestAt} <= ${new Date(now.getTime() - PERIOD_MS.weekly)}`,
            ),
          ),
        ),
      );
    let sent = 0;
    for (const row of due) {
      if (row.digest === 'off') continue;
      try {
        if (await digestFor({ ...row, digest: row.digest }, now)) sent++;
      } catch (err) {
        deps.log.warn({ err, salesRepId: row.salesRepId }, 'SDR digest failed');
      }
    }
    return sent;
  }

  return { list, save, onSuper, runDigests };
}
