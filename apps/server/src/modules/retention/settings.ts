import { asc, eq } from 'drizzle-orm';
import { RETENTION_BOUNDS } from '@rally/shared/schemas/retention';
import type { RetentionSettings, RetentionSettingsUpdate } from '@rally/shared/schemas/retention';
import type { Db } from '../../db/client.ts';
import { clients, retentionSettings } from '../../db/schema/index.ts';

type Row = typeof retentionSettings.$inferSelect;

const DEFAULTS: RetentionSettings = {
  events_months: RETENTION_BOUNDS.events_months.default,
  export_files_days: RETENTION_BOUNDS.export_files_days.default,
  delivery_logs_days: RETENTION_BOUNDS.delivery_logs_days.default,
  audit_log_days: RETENTION_BOUNDS.audit_log_days.default,
  updated_at: null,
};

export function toSettings(row: Row | undefined): RetentionSettings {
  if (!row) return { ...DEFAULTS };
  return {
    events_months: row.eventsMonths,
    export_files_days: row.exportFilesDays,
    delivery_logs_days: row.deliveryLogsDays,
    audit_log_days: row.auditLogDays,
    updated_at: row.updatedAt.toISOString(),
  };
}

/** The client's settings; the defaults while none are saved. */
export async function getRetention(db: Db, clientId: string): Promise<RetentionSettings> {
  const [row] = await db.select().from(retentionSettings).where(eq(retentionSettings.clientId, clientId));
  return toSettings(row);
}

/** Saves the fields given (the others keep their value, or the default). */
export async function saveRetention(
  db: Db,
  clientId: string,
  userId: string | null,
  patch: RetentionSettingsUpdate,
): Promise<RetentionSettings> {
  const set = {
    ...(patch.events_months !== undefined ? { eventsMonths: patch.events_months } : {}),
    ...(patch.export_files_days !== undefined ? { exportFilesDays: patch.export_files_days } : {}),
    ...(patch.delivery_logs_days !== undefined ? { deliveryLogsDays: patch.delivery_logs_days } : {}),
    ...(patch.audit_log_days !== undefined ? { auditLogDays: patch.audit_log_days } : {}),
    updatedBy: userId,
    updatedAt: new Date(),
  };
  const [row] = await db
    .insert(retentionSettings)
    .values({ clientId, ...set })
    .onConflictDoUpdate({ target: retentionSettings.clientId, set })
    .returning();
  return toSettings(row);
}

/** Every client's settings (the defaults for clients without a row), for the daily job. */
export async function allRetention(db: Db): Promise<{ clientId: string; settings: RetentionSettings }[]> {
  const rows = await db
    .select({ clientId: clients.id, row: retentionSettings })
    .from(clients)
    .leftJoin(retentionSettings, eq(retentionSettings.clientId, clients.id))
    .orderBy(asc(clients.id));
  return rows.map((r) => ({ clientId: r.clientId, settings: toSettings(r.row ?? undefined) }));
}
