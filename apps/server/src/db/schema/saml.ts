import { boolean, index, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { clients } from './identity.ts';

/**
 * A client's SAML 2.0 single sign-on (docs/saml.md, docs/decisions/0035): beside its OpenID Connect
 * settings, and bound by the same rules (decision 0014): it speaks only for addresses on the
 * client's verified domains and its sessions act in this client only.
 */
export const samlConfigs = pgTable('saml_configs', {
  clientId: uuid('client_id')
    .primaryKey()
    .references(() => clients.id, { onDelete: 'cascade' }),
  enabled: boolean('enabled').notNull().default(false),
  /** The identity provider's entity ID: the Issuer its assertions must name. */
  idpEntityId: text('idp_entity_id').notNull(),
  /** Where SP-initiated sign-in sends the AuthnRequest (HTTP-Redirect binding). */
  ssoUrl: text('sso_url').notNull(),
  /** PEM certificates; an assertion signed by any of them is accepted (rotation: old and new). */
  certificates: text('certificates').array().notNull(),
  /** Where the metadata was fetched from, when it was (null: entered or pasted). */
  metadataUrl: text('metadata_url'),
  nameIdFormat: text('name_id_format').notNull(),
  /** Attribute names carrying the member's e-mail (else the NameID), first and last name. */
  emailAttribute: text('email_attribute'),
  firstNameAttribute: text('first_name_attribute'),
  lastNameAttribute: text('last_name_attribute'),
  /** Just-in-time membership: an address on a verified domain without membership joins with jitRole. */
  jitEnabled: boolean('jit_enabled').notNull().default(false),
  jitRole: text('jit_role').notNull().default('grey_viewer'),
  /** Unsolicited responses (no AuthnRequest of ours) are refused unless the owner turns this on. */
  idpInitiated: boolean('idp_initiated').notNull().default(false),
  /**
   * Rally's own key for this client (made at first save): sealed with the secrets-at-rest box
   * (lib/crypto.ts), and its self-signed certificate, published in our metadata for signing and
   * encryption. Null only for rows saved before migration 0066, until their next use.
   */
  spPrivateKeyEnc: text('sp_private_key_enc'),
  spCertificate: text('sp_certificate'),
  /** The owner asks for signed AuthnRequests; the IdP's metadata may also ask (WantAuthnRequestsSigned). */
  signRequests: boolean('sign_requests').notNull().default(false),
  idpWantsSignedRequests: boolean('idp_wants_signed_requests').notNull().default(false),
  /** An assertion that is not encrypted (EncryptedAssertion) to our certificate is refused. */
  requireEncryption: boolean('require_encryption').notNull().default(false),
  /** The identity provider's SingleLogoutService (HTTP-Redirect), for single logout; null: none. */
  sloUrl: text('slo_url'),
  /** The metadata URL's last fetch (daily job): when it last worked, when last tried, and why it failed. */
  metadataFetchedAt: timestamp('metadata_fetched_at', { withTimezone: true }),
  metadataCheckedAt: timestamp('metadata_checked_at', { withTimezone: true }),
  metadataError: text('metadata_error'),
  updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
});

/**
 * Assertions already used, until they expire (their NotOnOrAfter): the primary key makes a replay
 * fail on every instance, not only the one that saw the assertion first.
 */
export const samlAssertions = pgTable(
  'saml_assertions',
  {
    issuer: text('issuer').notNull(),
    assertionId: text('assertion_id').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    primaryKey({ columns: [t.issuer, t.assertionId] }),
    index('saml_assertions_expires_idx').on(t.expiresAt),
  ],
);
