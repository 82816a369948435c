import { eq } from 'drizzle-orm';
import type { z } from 'zod';
import { DEFAULT_COLORS } from '@rally/shared';
import { ATTRIBUTION_WINDOW_DEFAULT_DAYS } from '@rally/shared/schemas/reports';
import type { ClientSettings, clientSettingsUpdateBody } from '@rally/shared/schemas/content';
import type { Db } from '../../db/client.ts';
import { clientSettings } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';
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
