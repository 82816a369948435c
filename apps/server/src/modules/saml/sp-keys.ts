import { and, eq, isNull } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { samlConfigs } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import { generateSpKeyPair } from './sp-key.ts';
import type { SpKeyPair } from './sp-key.ts';

type Row = typeof samlConfigs.$inferSelect;

/** A new key pair, sealed for storage: the private key never reaches the database in the clear. */
export async function newSpKey(box: SecretBox, clientId: string) {
  const pair = await generateSpKeyPair(`Rally SAML SP ${clientId}`);
  return { pair, spPrivateKeyEnc: box.encrypt(pair.keyPem), spCertificate: pair.certPem };
}

/**
 * The client's SP key pair, made now for a row saved before migration 0066. The update only fills an
 * empty slot, so two instances racing keep one pair (the loser reads the winner's).
 */
export async function spKeyOf(db: Db, box: SecretBox, row: Row): Promise<SpKeyPair> {
  if (row.spPrivateKeyEnc && row.spCertificate) {
    return { keyPem: box.decrypt(row.spPrivateKeyEnc), certPem: row.spCertificate };
  }
  const made = await newSpKey(box, row.clientId);
  const [stored] = await db
    .update(samlConfigs)
    .set({ spPrivateKeyEnc: made.spPrivateKeyEnc, spCertificate: made.spCertificate })
    .where(and(eq(samlConfigs.clientId, row.clientId), isNull(samlConfigs.spPrivateKeyEnc)))
    .returning({ clientId: samlConfigs.clientId });
  if (stored) return made.pair;
  const [now] = await db.select().from(samlConfigs).where(eq(samlConfigs.clientId, row.clientId));
  if (!now?.spPrivateKeyEnc || !now.spCertificate) throw new Error('SAML SP key missing');
  return { keyPem: box.decrypt(now.spPrivateKeyEnc), certPem: now.spCertificate };
}
