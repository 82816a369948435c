import { and, eq, ne } from 'drizzle-orm';
import type { z } from 'zod';
import { DEFAULT_COLORS } from '@rally/shared';
import { ATTRIBUTION_WINDOW_DEFAULT_DAYS } from '@rally/shared/schemas/reports';
import type {
  ClientSettings,
  LandingDomain,
  LandingDomainCheck,
  clientSettingsUpdateBody,
} from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import { clientSettings } from '../../db/schema/index.ts';
import { DnsTimeout, bareHost as bare, lookupOrEmpty } from '../../lib/dns.ts';
import type { DomainResolver } from '../../lib/dns.ts';
import { fieldError, httpError, oneRow } from '../../lib/errors.ts';
import { normaliseColors } from './text.ts';

type SettingsRow = typeof clientSettings.$inferSelect;
type SettingsInsert = typeof clientSettings.$inferInsert;
type UpdateBody = z.output<typeof clientSettingsUpdateBody>;

/** SPEC.md §3 "Client settings" with their defaults, for a client that has stored none. */
function defaults(clientId: string): ClientSettings {
  return {
    client_id: clientId,
    colors: { ...DEFAULT_COLORS },
    facebook_cover_photo: '',
    facebook_name: '',
    facebook_page_url: '',
    facebook_profile_photo: '',
    favicon_url: '',
    website_url: '',
    logo_url: '',
    revenue_report_enabled: false,
    attribution_window_days: ATTRIBUTION_WINDOW_DEFAULT_DAYS,
    landing_button_name: '',
    landing_page_domain: null,
    landing_trigger_field: '',
    landing_trigger_type: '',
    updated_at: null,
  };
}

export function toClientSettings(row: SettingsRow): ClientSettings {
  return {
    client_id: row.clientId,
    colors: normaliseColors(row.colors),
    facebook_cover_photo: row.facebookCoverPhoto,
    facebook_name: row.facebookName,
    facebook_page_url: row.facebookPageUrl,
    facebook_profile_photo: row.facebookProfilePhoto,
    favicon_url: row.faviconUrl,
    website_url: row.websiteUrl,
    logo_url: row.logoUrl,
    revenue_report_enabled: row.revenueReportEnabled,
    attribution_window_days: row.attributionWindowDays,
    landing_button_name: row.landingButtonName,
    landing_page_domain: row.landingPageDomain,
    landing_trigger_field: row.landingTriggerField,
    landing_trigger_type: row.landingTriggerType,
    updated_at: row.updatedAt.toISOString(),
  };
}

async function settingsRow(db: Db, clientId: string): Promise<SettingsRow | undefined> {
  const [row] = await db.select().from(clientSettings).where(eq(clientSettings.clientId, clientId));
  return row;
}

export async function getClientSettings(db: Db, clientId: string): Promise<ClientSettings> {
  const row = await settingsRow(db, clientId);
  return row ? toClientSettings(row) : defaults(clientId);
}

/** Upserts the given fields; the others keep their value (or their default on the first save). */
export async function updateClientSettings(
  db: Db,
  clientId: string,
  body: UpdateBody,
): Promise<ClientSettings> {
  const set: Partial<SettingsInsert> = {};
  if (body.colors !== undefined) set.colors = normaliseColors(body.colors);
  if (body.facebook_cover_photo !== undefined) set.facebookCoverPhoto = body.facebook_cover_photo;
  if (body.facebook_name !== undefined) set.facebookName = body.facebook_name;
  if (body.facebook_page_url !== undefined) set.facebookPageUrl = body.facebook_page_url;
  if (body.facebook_profile_photo !== undefined) set.facebookProfilePhoto = body.facebook_profile_photo;
  if (body.favicon_url !== undefined) set.faviconUrl = body.favicon_url;
  if (body.website_url !== undefined) set.websiteUrl = body.website_url;
  if (body.logo_url !== undefined) set.logoUrl = body.logo_url;
  if (body.revenue_report_enabled !== undefined) set.revenueReportEnabled = body.revenue_report_enabled;
  if (body.attribution_window_days !== undefined) set.attributionWindowDays = body.attribution_window_days;
  if (body.landing_button_name !== undefined) set.landingButtonName = body.landing_button_name;
  if (body.landing_trigger_field !== undefined) set.landingTriggerField = body.landing_trigger_field;
  if (body.landing_trigger_type !== undefined) set.landingTriggerType = body.landing_trigger_type;
  const row = oneRow(
    await db
      .insert(clientSettings)
      .values({ clientId, colors: { ...DEFAULT_COLORS }, ...set })
      .onConflictDoUpdate({ target: clientSettings.clientId, set: { ...set, updatedAt: new Date() } })
      .returning(),
  );
  return toClientSettings(row);
}

// ---------------------------------------------------------------------------------------------
// Landing domain: a host of the client's (go.acme.com) pointed at us by a CNAME, serving /{base58}

function domainReply(row: SettingsRow | undefined, appHost: string): LandingDomain {
  const domain = row?.landingPageDomain ?? null;
  const verifiedAt = row?.landingPageDomainVerifiedAt ?? null;
  return {
    domain,
    dns_record: domain ? { type: 'CNAME', name: domain, value: appHost } : null,
    verified: domain !== null && verifiedAt !== null,
    verified_at: domain ? (verifiedAt?.toISOString() ?? null) : null,
  };
}

export async function getLandingDomain(db: Db, clientId: string, appHost: string): Promise<LandingDomain> {
  return domainReply(await settingsRow(db, clientId), appHost);
}

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

/** Sets the domain (unverified until a check finds it pointing at us); another client's → 409. */
export async function setLandingDomain(
  db: Db,
  clientId: string,
  domain: string,
  appHost: string,
): Promise<LandingDomain> {
  if (domain === bare(appHost) || domain.endsWith(`.${bare(appHost)}`)) {
    throw fieldError('body.domain', `must be a domain of yours, not ${bare(appHost)}`);
  }
  const [taken] = await db
    .select({ clientId: clientSettings.clientId })
    .from(clientSettings)
    .where(and(eq(clientSettings.landingPageDomain, domain), ne(clientSettings.clientId, clientId)));
  const conflict = () => httpError(409, `${domain} is already the landing page domain of another client.`);
  if (taken) throw conflict();
  const current = await settingsRow(db, clientId);
  if (current?.landingPageDomain === domain) return domainReply(current, appHost);
  try {
    const set = { landingPageDomain: domain, landingPageDomainVerifiedAt: null };
    const row = oneRow(
      await db
        .insert(clientSettings)
        .values({ clientId, colors: { ...DEFAULT_COLORS }, ...set })
        .onConflictDoUpdate({ target: clientSettings.clientId, set: { ...set, updatedAt: new Date() } })
        .returning(),
    );
    return domainReply(row, appHost);
  } catch (err) {
    // Two clients claiming the same domain at once: the unique index settles it.
    if (isUniqueViolation(err)) throw conflict();
    throw err;
  }
}

export async function removeLandingDomain(db: Db, clientId: string, appHost: string): Promise<LandingDomain> {
  const [row] = await db
    .update(clientSettings)
    .set({ landingPageDomain: null, landingPageDomainVerifiedAt: null, updatedAt: new Date() })
    .where(eq(clientSettings.clientId, clientId))
    .returning();
  return domainReply(row, appHost);
}

async function lookup(fn: () => Promise<string[]>): Promise<string[]> {
  try {
    return await lookupOrEmpty(fn);
  } catch (err) {
    if (err instanceof DnsTimeout) {
      throw httpError(503, 'The DNS lookup timed out. Try the check again in a minute.');
    }
    throw err;
  }
}

/**
 * Resolves the domain: verified when its CNAME names our host, or (an apex with A/AAAA records, or
 * a flattened CNAME) when it resolves to the same addresses as our host. Records verified_at.
 */
export async function checkLandingDomain(
  db: Db,
  clientId: string,
  appHost: string,
  resolver: DomainResolver,
): Promise<LandingDomainCheck> {
  const row = await settingsRow(db, clientId);
  const domain = row?.landingPageDomain;
  if (!row || !domain) throw httpError(404, 'No landing page domain is set. Set one first.');
  const ours = bare(appHost);
  const cnames = (await lookup(() => resolver.resolveCname(domain))).map(bare);
  let verified = cnames.includes(ours);
  let resolved = cnames;
  if (!verified) {
    const [mine4, mine6, their4, their6] = await Promise.all([
      lookup(() => resolver.resolve4(ours)),
      lookup(() => resolver.resolve6(ours)),
      cnames.length ? Promise.resolve([]) : lookup(() => resolver.resolve4(domain)),
      cnames.length ? Promise.resolve([]) : lookup(() => resolver.resolve6(domain)),
    ]);
    const theirs = [...their4, ...their6];
    const mine = new Set([...mine4, ...mine6]);
    if (!cnames.length) resolved = theirs;
    verified = theirs.length > 0 && theirs.every((a) => mine.has(a));
  }
  const verifiedAt = verified ? (row.landingPageDomainVerifiedAt ?? new Date()) : null;
  const [updated] = await db
    .update(clientSettings)
    .set({ landingPageDomainVerifiedAt: verifiedAt })
    .where(and(eq(clientSettings.clientId, clientId), eq(clientSettings.landingPageDomain, domain)))
    .returning();
  let message: string;
  if (verified) message = `${domain} points at ${ours}. Landing pages are served there.`;
  else if (resolved.length === 0) {
    message = `${domain} has no DNS record yet. Create a CNAME record from ${domain} to ${ours}; DNS changes can take up to an hour to show.`;
  } else {
    message = `${domain} points at ${resolved.join(', ')}, not ${ours}. Change its CNAME record to ${ours}.`;
  }
  return { ...domainReply(updated ?? row, appHost), resolved, message };
}
