import { sql } from 'drizzle-orm';
import { boolean, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { clients, users } from './identity.ts';

/**
 * Bearer tokens of a client's SCIM 2.0 provisioning (docs/decisions/0029). Shown once when made;
 * only the SHA-256 is kept, like sessions and sign-in links. A revoked token stays listed.
 */
export const scimTokens = pgTable(
  'scim_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The token's first characters, so an owner can tell tokens apart (not enough to use it). */
    hint: text('hint').notNull(),
    /** The role a provisioned member gets until a group (role) says otherwise. */
    defaultRole: text('default_role').notNull(),
    createdBy: uuid('created_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true }),
    revokedAt: timestamp('revoked_at', { withTimezone: true }),
  },
  (t) => [uniqueIndex('scim_tokens_hash_uq').on(t.tokenHash), index('scim_tokens_client_idx').on(t.clientId)],
);

/**
 * A member as the client's identity provider provisioned them (RFC 7643 §4.1 User). The SCIM `id`
 * is the user's id. An inactive member keeps this row (and the role to give back) but has no
 * membership, so no access to the client; other clients' memberships are never touched.
 */
export const scimUsers = pgTable(
  'scim_users',
  {
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The identity provider's own id for the person (RFC 7643 §3.1 externalId). */
    externalId: text('external_id'),
    /** The address as the provider sent it (RFC 7643 §4.1 userName; case-insensitive). */
    userName: text('user_name').notNull(),
    givenName: text('given_name').notNull().default(''),
    familyName: text('family_name').notNull().default(''),
    /** The role to give back when reactivated (while active, the membership's role rules). */
    role: text('role').notNull(),
    active: boolean('active').notNull().default(true),
    /** Whether provisioning made the account; only then may it change the account's name. */
    createdAccount: boolean('created_account').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.clientId, t.userId] }),
    uniqueIndex('scim_users_user_name_uq').on(t.clientId, sql`lower(${t.userName})`),
    uniqueIndex('scim_users_external_id_uq')
      .on(t.clientId, t.externalId)
      .where(sql`${t.externalId} is not null`),
  ],
);
