import { sql } from 'drizzle-orm';
import {
  boolean,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';

const timestamps = {
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
};

export const users = pgTable(
  'users',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    email: text('email').notNull(),
    firstName: text('first_name').notNull().default(''),
    lastName: text('last_name').notNull().default(''),
    /** argon2id PHC string; null for users who only sign in by OAuth, SSO or magic link. */
    passwordHash: text('password_hash'),
    /** TOTP secret, encrypted with APP_SECRET; set once enrolment is confirmed. */
    mfaSecretEnc: text('mfa_secret_enc'),
    /** TOTP secret awaiting its first code (enrolment started, not confirmed). */
    mfaPendingSecretEnc: text('mfa_pending_secret_enc'),
    ...timestamps,
  },
  // E-mail addresses are unique regardless of case.
  (t) => [uniqueIndex('users_email_lower_uq').on(sql`lower(${t.email})`)],
);

/** A client organisation (company). Agencies are clients whose child clients name them as parent. */
export const clients = pgTable(
  'clients',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    name: text('name').notNull(),
    parentId: uuid('parent_id'),
    /**
     * The client's own random value for DNS TXT records proving it controls a domain
     * (`_rally.<domain>` TXT `rally-verification=<token>`, docs/decisions/0013). Not a secret: it
     * only has to differ from every other client's.
     */
    domainToken: text('domain_token')
      .notNull()
      .default(sql`replace(gen_random_uuid()::text, '-', '')`),
    ...timestamps,
  },
  (t) => [index('clients_parent_idx').on(t.parentId)],
);

export const memberships = pgTable(
  'memberships',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    /** `colour_role`, e.g. purple_owner (SPEC.md §3). */
    role: text('role').notNull(),
    permissions: text('permissions')
      .array()
      .notNull()
      .default(sql`'{}'::text[]`),
    isDefault: boolean('is_default').notNull().default(false),
    ...timestamps,
  },
  (t) => [
    uniqueIndex('memberships_user_client_uq').on(t.userId, t.clientId),
    index('memberships_client_idx').on(t.clientId),
    // At most one default membership per user.
    uniqueIndex('memberships_one_default_uq')
      .on(t.userId)
      .where(sql`${t.isDefault}`),
  ],
);

/** Server-side sessions; only the SHA-256 of the cookie token is stored. */
export const sessions = pgTable(
  'sessions',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    lastSeenAt: timestamp('last_seen_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    userAgent: text('user_agent'),
    ip: text('ip'),
    /**
     * Set for a session started by a client's single sign-on: it may act in that client only
     * (docs/decisions/0014). Null for every other way in.
     */
    scopeClientId: uuid('scope_client_id').references(() => clients.id, { onDelete: 'cascade' }),
  },
  (t) => [
    uniqueIndex('sessions_token_hash_uq').on(t.tokenHash),
    index('sessions_user_idx').on(t.userId),
    index('sessions_scope_client_idx')
      .on(t.scopeClientId)
      .where(sql`${t.scopeClientId} is not null`),
  ],
);

export const AUTH_TOKEN_KINDS = ['magic_link', 'password_reset', 'mfa_challenge'] as const;

/** Single-use tokens mailed or handed to a user; only their SHA-256 is stored. */
export const authTokens = pgTable(
  'auth_tokens',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    kind: text('kind', { enum: AUTH_TOKEN_KINDS }).notNull(),
    tokenHash: text('token_hash').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('auth_tokens_hash_uq').on(t.tokenHash), index('auth_tokens_user_idx').on(t.userId)],
);

/** MFA recovery codes, hashed; each works once. */
export const recoveryCodes = pgTable(
  'recovery_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    usedAt: timestamp('used_at', { withTimezone: true }),
  },
  (t) => [index('recovery_codes_user_idx').on(t.userId)],
);

/** Invitations to join a client (SPEC.md "user_request"); accepted at /signup?hash=. */
export const userRequests = pgTable(
  'user_requests',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role').notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedBy: uuid('invited_by').references(() => users.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('user_requests_token_uq').on(t.tokenHash),
    index('user_requests_client_idx').on(t.clientId),
    // One open invitation per address and client; resending replaces its token.
    uniqueIndex('user_requests_open_uq')
      .on(t.clientId, sql`lower(${t.email})`)
      .where(sql`${t.acceptedAt} is null`),
  ],
);

/**
 * Replies to writes sent with an Idempotency-Key, so a retried POST or PATCH is answered from here
 * instead of being applied twice. `scope` is the user (or the anonymous CSRF cookie).
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    statusCode: integer('status_code'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    body: text('body'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] }), index('idempotency_keys_created_idx').on(t.createdAt)],
);

/** A client's own OIDC identity provider, for SSO by username. The secret is encrypted. */
export const ssoConfigs = pgTable('sso_configs', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  issuer: text('issuer').notNull(),
  oidcClientId: text('oidc_client_id').notNull(),
  clientSecretEnc: text('client_secret_enc').notNull(),
  enabled: boolean('enabled').notNull().default(true),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Which account of a client's identity provider (its issuer and stable `sub`) a member signs in as.
 * Linked at the first SSO sign-in; later ones must present the same subject. Dropped when the
 * client's issuer changes (docs/decisions/0014).
 */
export const ssoIdentities = pgTable(
  'sso_identities',
  {
    clientId: uuid('client_id')
      .notNull()
      .references(() => clients.id, { onDelete: 'cascade' }),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.clientId, t.userId] }),
    uniqueIndex('sso_identities_subject_uq').on(t.clientId, t.issuer, t.subject),
  ],
);

/**
 * Which Google or Microsoft account signs a user in: the provider's stable subject (Google's `sub`;
 * Microsoft's `tid` + `oid`, else `sub`). Returning users are matched by it, never by the e-mail
 * claim; it is linked only for an address the provider verified or while the user is signed in
 * (issue 37.2, docs/decisions/0015). One account per provider and user.
 */
export const oauthIdentities = pgTable(
  'oauth_identities',
  {
    provider: text('provider').notNull(),
    subject: text('subject').notNull(),
    userId: uuid('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The address the provider gave when linked (shown to the user; never used to match). */
    email: text('email').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ columns: [t.provider, t.subject] }),
    uniqueIndex('oauth_identities_user_uq').on(t.userId, t.provider),
  ],
);

/**
 * Wrong second-factor codes (TOTP or recovery) counted across sign-ins, per account (`scope` 'mfa-account',
 * `key` the user id) and per IP ('mfa-ip'). In the database so the count survives restarts and is shared
 * by every instance; reaching the limit sets `locked_until` (issue 20.2).
 */
export const authFailures = pgTable(
  'auth_failures',
  {
    scope: text('scope').notNull(),
    key: text('key').notNull(),
    failures: integer('failures').notNull(),
    windowStartedAt: timestamp('window_started_at', { withTimezone: true }).notNull().defaultNow(),
    lockedUntil: timestamp('locked_until', { withTimezone: true }),
  },
  (t) => [primaryKey({ columns: [t.scope, t.key] })],
);
