import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients } from './identity.ts';

/**
 * Domains a client says it owns, verified by a DNS TXT record with the client's token
 * (docs/decisions/0013). A verified domain covers its subdomains: single sign-on vouches only for
 * e-mail addresses on them, and the click tag redirects straight only to them. Several clients may
 * verify the same domain (each proves it with its own token).
 */
export const clientDomains = pgTable(
  'client_domains',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** Lower case, no trailing dot. */
    domain: text('domain').notNull(),
    verifiedAt: timestamp('verified_at', { withTimezone: true }),
    lastCheckedAt: timestamp('last_checked_at', { withTimezone: true }),
    /** What the last check found, in words for the settings screen. */
    lastCheckMessage: text('last_check_message'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('client_domains_client_domain_uq').on(t.clientId, t.domain),
    index('client_domains_checked_idx').on(t.lastCheckedAt),
    index('client_domains_verified_idx')
      .on(t.clientId)
      .where(sql`${t.verifiedAt} is not null`),
  ],
);

/**
 * A landing page domain a client let go of stays reserved to it for a cooling-off period, so that
 * another client cannot pick it up while links and DNS records still point at it (issue 37.6).
 */
export const domainReservations = pgTable('domain_reservations', {
  domain: text('domain').primaryKey(),
  clientId: uuid('client_id')
    .notNull()
    .references(() => clients.id, { onDelete: 'cascade' }),
  reservedUntil: timestamp('reserved_until', { withTimezone: true }).notNull(),
});

/**
 * When a client's verified landing domain was last looked up by the re-check job (its TXT token).
 * Kept apart from client_settings so that a look that finds nothing new moves no tracking state.
 */
export const landingDomainChecks = pgTable('landing_domain_checks', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  checkedAt: timestamp('checked_at', { withTimezone: true }).notNull(),
});
