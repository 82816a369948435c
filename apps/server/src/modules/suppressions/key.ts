import { createHmac, createSecretKey, hkdfSync } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';

/**
 * The keyed hash of an e-mail address that the suppression list is kept by (decision 0027):
 * HMAC-SHA256 under a key derived from APP_SECRET, of the address with surrounding blanks removed and
 * ASCII letters lower-cased. A leak of the table alone does not name anyone (the hashes cannot be
 * looked up in a list of known addresses without the key).
 *
 * The same HMAC is computable in SQL with the built-in sha256() (RFC 2104: H(K⊕opad ‖ H(K⊕ipad ‖ m))),
 * so the tag's state query and the audiences can test a prospect's address in the statement that
 * reads it, on PostgreSQL and PGlite alike, without pgcrypto. The key goes in as two parameters and
 * is never stored in the database. Only ASCII is lower-cased, the same in both places, because
 * PostgreSQL's lower() depends on the database's locale.
 */
export type SuppressionKey = {
  /** The hex hash of an address, or null when there is nothing left of it. */
  hash(email: string): string | null;
  ipadHex: string;
  opadHex: string;
  /** The derived HMAC key (not APP_SECRET), for a child process of this app. */
  derivedHex: string;
};

const BLANKS = /^[ \t\r\n]+|[ \t\r\n]+$/g;

/** The address as it is hashed: blanks around it removed, ASCII letters lower-cased. */
export function normaliseEmail(email: string): string {
  return email.replace(BLANKS, '').replace(/[A-Z]+/g, (s) => s.toLowerCase());
}

export function createSuppressionKey(appSecret: string): SuppressionKey {
  return suppressionKeyOf(Buffer.from(hkdfSync('sha256', appSecret, 'rally', 'suppression-email-v1', 32)));
}

/** The key from its derived bytes (`derivedHex`): how the import's child process gets it, not APP_SECRET. */
export function suppressionKeyOf(key: Buffer): SuppressionKey {
  const block = Buffer.alloc(64);
  key.copy(block);
  const ipad = Buffer.from(block.map((b) => b ^ 0x36));
  const opad = Buffer.from(block.map((b) => b ^ 0x5c));
  // A KeyObject made once: given the key's bytes, createHmac builds one at every call, which cost
  // a sync about 40 µs an address against 6 (issue 43: half the CRM sync's own CPU went there).
  const secret = createSecretKey(key);
  return {
    hash(email) {
      const norm = normaliseEmail(email);
      return norm ? createHmac('sha256', secret).update(norm, 'utf8').digest('hex') : null;
    },
    ipadHex: ipad.toString('hex'),
    opadHex: opad.toString('hex'),
    derivedHex: key.toString('hex'),
  };
}

/** The SQL of `key.hash(email)` for an address expression (null for a null address). */
export function emailHashSql(key: SuppressionKey, email: SQL): SQL {
  const norm = sql`translate(btrim(${email}, ' ' || chr(9) || chr(10) || chr(13)),
    'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz')`;
  return sql`encode(sha256(decode(${key.opadHex}::text, 'hex')
    || sha256(decode(${key.ipadHex}::text, 'hex') || convert_to(${norm}, 'UTF8'))), 'hex')`;
}

/** True in SQL when the address is on the client's list in force. */
export function suppressedSql(key: SuppressionKey, clientId: SQL, email: SQL): SQL {
  return sql`exists (select 1 from suppressions sx where sx.client_id = ${clientId}
    and sx.removed_at is null and sx.email_hash = ${emailHashSql(key, email)})`;
}
