import { sql } from 'drizzle-orm';
import {
  bigint,
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { clients, users } from './identity.ts';

const clientRef = () =>
  uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' });

/** SPEC.md §3 "Colors": background, text and accent default white/black/black; primary optional. */
export type Colors = { background: string; text: string; accent: string; primary?: string | null };
/** SPEC.md §3 "Assignee": the rep shown on the ad; all optional strings defaulting to empty. */
export type Assignee = {
  first_name: string;
  last_name: string;
  title: string;
  company_name: string;
  website: string;
  calendar_url: string;
};
/** SPEC.md §3 "Landing page payload". */
export type LandingPagePayload = {
  content_html: string;
  footer_html: string;
  hero_html: string;
  hero_img: string;
  landing_trigger_field?: string | null;
  landing_trigger_type?: string | null;
  landing_button_name?: string | null;
};

export const CONTENT_STATUSES = ['draft', 'published'] as const;

/**
 * A content item (SPEC.md §3 "Content item", "Ad creative"): an ad creative (template 1-4 at the four
 * ad sizes) with its landing page payload. Text fields are stored escaped (SPEC.md §5).
 */
export const content = pgTable(
  'content',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    name: text('name'),
    status: text('status', { enum: CONTENT_STATUSES }).notNull().default('draft'),
    isArchived: boolean('is_archived').notNull().default(false),
    templateId: integer('template_id').notNull().default(1),
    title: text('title').notNull().default(''),
    imageText: text('image_text').notNull().default(''),
    primaryText: text('primary_text').notNull().default(''),
    sdrImgUrl: text('sdr_img_url').notNull().default(''),
    colors: jsonb('colors').$type<Colors>().notNull(),
    assignee: jsonb('assignee').$type<Assignee | null>(),
    landingPagePayload: jsonb('landing_page_payload').$type<LandingPagePayload>().notNull(),
    landingPageUrl: text('landing_page_url').notNull().default(''),
    /** Landing page shown after a click on this content's ads, if any. */
    landingPageId: uuid('landing_page_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }),
  },
  (t) => [index('content_client_idx').on(t.clientId, t.isArchived)],
);

/** SPEC.md §3 "Landing page"; served at /lp/{base58 of id} and on the client's landing domain. */
export const landingPages = pgTable(
  'landing_pages',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    name: text('name').notNull(),
    landingPagePayload: jsonb('landing_page_payload').$type<LandingPagePayload>().notNull(),
    sdrImgUrl: text('sdr_img_url').notNull().default(''),
    logoUrl: text('logo_url').notNull().default(''),
    faviconUrl: text('favicon_url').notNull().default(''),
    colors: jsonb('colors').$type<Colors>().notNull(),
    assignee: jsonb('assignee').$type<Assignee | null>(),
    isArchived: boolean('is_archived').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('landing_pages_client_idx').on(t.clientId)],
);

/** SPEC.md §3 "Client settings": brand, Facebook look, landing page defaults and domain. */
export const clientSettings = pgTable(
  'client_settings',
  {
    clientId: uuid('client_id')
      .primaryKey()
      .references(() => clients.id, { onDelete: 'cascade' }),
    colors: jsonb('colors').$type<Colors>().notNull(),
    facebookCoverPhoto: text('facebook_cover_photo').notNull().default(''),
    facebookName: text('facebook_name').notNull().default(''),
    facebookPageUrl: text('facebook_page_url').notNull().default(''),
    facebookProfilePhoto: text('facebook_profile_photo').notNull().default(''),
    faviconUrl: text('favicon_url').notNull().default(''),
    websiteUrl: text('website_url').notNull().default(''),
    logoUrl: text('logo_url').notNull().default(''),
    revenueReportEnabled: boolean('revenue_report_enabled').notNull().default(false),
    /** Days before an opportunity's moment in which an engagement counts for it (docs/reports.md). */
    attributionWindowDays: integer('attribution_window_days').notNull().default(90),
    landingButtonName: text('landing_button_name').notNull().default(''),
    /**
     * Custom host serving /{base58} landing pages (e.g. go.acme.com), lower case. Several clients may
     * claim one; only one can have it verified (its CNAME and the client's TXT token, issue 37.6).
     */
    landingPageDomain: text('landing_page_domain'),
    landingPageDomainVerifiedAt: timestamp('landing_page_domain_verified_at', { withTimezone: true }),
    landingTriggerField: text('landing_trigger_field').notNull().default(''),
    landingTriggerType: text('landing_trigger_type').notNull().default(''),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('client_settings_verified_landing_domain_uq')
      .on(t.landingPageDomain)
      .where(sql`${t.landingPageDomainVerifiedAt} is not null`),
  ],
);

export const UPLOAD_KINDS = ['logo', 'favicon', 'photo', 'hero', 'cover', 'image'] as const;

/** An uploaded image, checked by its bytes; stored on disk or S3 under `storageKey`. */
export const uploads = pgTable(
  'uploads',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: clientRef(),
    kind: text('kind', { enum: UPLOAD_KINDS }).notNull(),
    storageKey: text('storage_key').notNull(),
    contentType: text('content_type').notNull(),
    byteSize: bigint('byte_size', { mode: 'number' }).notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    sha256: text('sha256').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('uploads_client_idx').on(t.clientId)],
);
