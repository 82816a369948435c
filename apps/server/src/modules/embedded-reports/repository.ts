import { and, desc, eq, sql } from 'drizzle-orm';
import type { EmbeddedReportKind } from '@rally/shared/schemas/embedded-reports';
import type { Db } from '../../db/client.ts';
import { clients, embeddedReports, users } from '../../db/schema/index.ts';

export type EmbeddedReportRow = typeof embeddedReports.$inferSelect & { createdByName: string | null };

const columns = {
  id: embeddedReports.id,
  clientId: embeddedReports.clientId,
  name: embeddedReports.name,
  report: embeddedReports.report,
  rangeDays: embeddedReports.rangeDays,
  tokenHash: embeddedReports.tokenHash,
  createdBy: embeddedReports.createdBy,
  createdAt: embeddedReports.createdAt,
  expiresAt: embeddedReports.expiresAt,
  revokedAt: embeddedReports.revokedAt,
  views: embeddedReports.views,
  lastViewedAt: embeddedReports.lastViewedAt,
  createdByName: sql<
    string | null
  >`nullif(trim(coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, '')), '')`,
  createdByEmail: users.email,
};

function withCreator(
  rows: (Omit<EmbeddedReportRow, 'createdByName'> & {
    createdByName: string | null;
    createdByEmail: string | null;
  })[],
): EmbeddedReportRow[] {
  return rows.map(({ createdByEmail, ...r }) => ({ ...r, createdByName: r.createdByName ?? createdByEmail }));
}

/** A client's saved reports, newest first (at most 500: a client shares a handful). */
export async function listOf(db: Db, clientId: string): Promise<EmbeddedReportRow[]> {
  const rows = await db
    .select(columns)
    .from(embeddedReports)
    .leftJoin(users, eq(users.id, embeddedReports.createdBy))
    .where(eq(embeddedReports.clientId, clientId))
    .orderBy(desc(embeddedReports.createdAt), desc(embeddedReports.id))
    .limit(500);
  return withCreator(rows);
}

export async function byId(db: Db, clientId: string, id: string): Promise<EmbeddedReportRow | null> {
  const rows = await db
    .select(columns)
    .from(embeddedReports)
    .leftJoin(users, eq(users.id, embeddedReports.createdBy))
    .where(and(eq(embeddedReports.clientId, clientId), eq(embeddedReports.id, id)));
  return withCreator(rows)[0] ?? null;
}

export async function insert(
  db: Db,
  row: {
    clientId: string;
    name: string;
    report: EmbeddedReportKind;
    rangeDays: number;
    tokenHash: string;
    createdBy: string;
    expiresAt: Date;
  },
): Promise<string> {
  const [created] = await db.insert(embeddedReports).values(row).returning({ id: embeddedReports.id });
  if (!created) throw new Error('embedded report not inserted');
  return created.id;
}

/** Revokes one of a client's links (once: the first revocation's time is kept). */
export async function revoke(db: Db, clientId: string, id: string, at: Date): Promise<boolean> {
  const rows = await db
    .update(embeddedReports)
    .set({ revokedAt: sql`coalesce(${embeddedReports.revokedAt}, ${at.toISOString()}::timestamptz)` })
    .where(and(eq(embeddedReports.clientId, clientId), eq(embeddedReports.id, id)))
    .returning({ id: embeddedReports.id });
  return rows.length > 0;
}

/** The link whose token has this hash, with its client's name. */
export async function byTokenHash(db: Db, tokenHash: string) {
  const [row] = await db
    .select({ link: embeddedReports, clientName: clients.name })
    .from(embeddedReports)
    .innerJoin(clients, eq(clients.id, embeddedReports.clientId))
    .where(eq(embeddedReports.tokenHash, tokenHash));
  return row ?? null;
}

export async function recordView(db: Db, id: string, at: Date): Promise<void> {
  await db
    .update(embeddedReports)
    .set({ views: sql`${embeddedReports.views} + 1`, lastViewedAt: at })
    .where(eq(embeddedReports.id, id));
}
