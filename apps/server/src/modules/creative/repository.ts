import { and, eq, gt, isNotNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import {
  clientSettings,
  companies,
  content,
  landingPages,
  prospects,
  salesReps,
  sessions,
  targets,
} from '../../db/schema/index.ts';

// The public pages' reads: each one indexed read (a primary key or a unique index), joined with
// what the page needs, so a page costs one or two round trips.

/** What the pages take from the client's brand settings. */
export type Brand = {
  logoUrl: string;
  faviconUrl: string;
  websiteUrl: string;
  landingButtonName: string;
};

const brandColumns = {
  logoUrl: clientSettings.logoUrl,
  faviconUrl: clientSettings.faviconUrl,
  websiteUrl: clientSettings.websiteUrl,
  landingButtonName: clientSettings.landingButtonName,
};

const NO_BRAND: Brand = { logoUrl: '', faviconUrl: '', websiteUrl: '', landingButtonName: '' };

function brandOf(row: { [K in keyof Brand]: string | null }): Brand {
  return {
    logoUrl: row.logoUrl ?? '',
    faviconUrl: row.faviconUrl ?? '',
    websiteUrl: row.websiteUrl ?? '',
    landingButtonName: row.landingButtonName ?? '',
  };
}

export type LandingPageRow = typeof landingPages.$inferSelect;
export type ContentRow = typeof content.$inferSelect;

export async function landingPageWithBrand(
  db: Db,
  id: string,
): Promise<{ page: LandingPageRow; brand: Brand } | null> {
  const [row] = await db
    .select({ page: landingPages, ...brandColumns })
    .from(landingPages)
    .leftJoin(clientSettings, eq(clientSettings.clientId, landingPages.clientId))
    .where(eq(landingPages.id, id));
  return row ? { page: row.page, brand: brandOf(row) } : null;
}

export async function contentWithBrand(
  db: Db,
  id: string,
): Promise<{ content: ContentRow; brand: Brand } | null> {
  const [row] = await db
    .select({ content, ...brandColumns })
    .from(content)
    .leftJoin(clientSettings, eq(clientSettings.clientId, content.clientId))
    .where(eq(content.id, id));
  return row ? { content: row.content, brand: brandOf(row) } : null;
}

export async function brandOfClient(
  db: Db,
  clientId: string,
): Promise<Brand & { colors: ContentRow['colors'] | null }> {
  const [row] = await db
    .select({ ...brandColumns, colors: clientSettings.colors })
    .from(clientSettings)
    .where(eq(clientSettings.clientId, clientId));
  return row ? { ...brandOf(row), colors: row.colors } : { ...NO_BRAND, colors: null };
}

/** The people a target's pages are personalised with: its prospect and its sales rep. */
export type TargetPeople = {
  clientId: string;
  prospect: { firstName: string; lastName: string; title: string; companyName: string | null };
  rep: {
    firstName: string;
    lastName: string;
    title: string;
    companyName: string;
    calendarUrl: string;
    photoUrl: string | null;
  } | null;
};

export async function targetPeopleByToken(db: Db, token: string): Promise<TargetPeople | null> {
  const [row] = await db
    .select({
      clientId: targets.clientId,
      prospectFirst: prospects.firstName,
      prospectLast: prospects.lastName,
      prospectTitle: prospects.title,
      company: companies.name,
      repId: salesReps.id,
      repFirst: salesReps.firstName,
      repLast: salesReps.lastName,
      repTitle: salesReps.title,
      repCompany: salesReps.companyName,
      repCalendar: salesReps.calendarUrl,
      repPhoto: salesReps.photoUrl,
    })
    .from(targets)
    .innerJoin(prospects, eq(prospects.id, targets.prospectId))
    .leftJoin(companies, eq(companies.id, prospects.companyId))
    .leftJoin(salesReps, eq(salesReps.id, targets.salesRepId))
    .where(eq(targets.token, token));
  if (!row) return null;
  return {
    clientId: row.clientId,
    prospect: {
      firstName: row.prospectFirst,
      lastName: row.prospectLast,
      title: row.prospectTitle,
      companyName: row.company,
    },
    rep: row.repId
      ? {
          firstName: row.repFirst ?? '',
          lastName: row.repLast ?? '',
          title: row.repTitle ?? '',
          companyName: row.repCompany ?? '',
          calendarUrl: row.repCalendar ?? '',
          photoUrl: row.repPhoto,
        }
      : null,
  };
}

/** The client whose verified landing domain is `host`, or null. */
export async function clientOfLandingDomain(db: Db, host: string): Promise<string | null> {
  const [row] = await db
    .select({ clientId: clientSettings.clientId })
    .from(clientSettings)
    .where(
      and(eq(clientSettings.landingPageDomain, host), isNotNull(clientSettings.landingPageDomainVerifiedAt)),
    );
  return row?.clientId ?? null;
}

/** The user of an unexpired session, by the hash of its token (read only: no sliding here). */
/** The user of a live session, and the one client it is limited to when SSO started it. */
export async function sessionUserId(
  db: Db,
  tokenHash: string,
): Promise<{ userId: string; scopeClientId: string | null } | null> {
  const [row] = await db
    .select({ userId: sessions.userId, scopeClientId: sessions.scopeClientId })
    .from(sessions)
    .where(and(eq(sessions.tokenHash, tokenHash), gt(sessions.expiresAt, new Date())));
  return row ?? null;
}
