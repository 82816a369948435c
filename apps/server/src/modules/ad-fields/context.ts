import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.ts';
import { integrations } from '../../db/schema/index.ts';
import type { ApiUsage } from '../../db/schema/index.ts';
import type { SecretBox } from '../../lib/crypto.ts';
import type { AdapterContext, Credentials } from '../integrations/port.ts';

/**
 * The adapter context for a connection, as the syncs build it: the sealed credentials, refreshed
 * tokens sealed and stored at once (vendors rotate refresh tokens), and the stored ones read again
 * when a refresh is refused (another run may have rotated them first). `interactive`: a user waits.
 * `apiUsage`: the vendor's API budget as the last sync stored it (Salesforce paces by it).
 */
export function adapterContext(
  db: Db,
  box: SecretBox,
  integration: { id: number; credentialsEnc: string; apiUsage?: ApiUsage | null },
  interactive = false,
): AdapterContext {
  let creds = JSON.parse(box.decrypt(integration.credentialsEnc)) as Credentials;
  return {
    interactive,
    apiUsage: integration.apiUsage ?? null,
    credentials: () => creds,
    saveCredentials: async (next) => {
      creds = next;
      await db
        .update(integrations)
        .set({ credentialsEnc: box.encrypt(JSON.stringify(next)), updatedAt: new Date() })
        .where(eq(integrations.id, integration.id));
    },
    reloadCredentials: async () => {
      const [row] = await db
        .select({ sealed: integrations.credentialsEnc })
        .from(integrations)
        .where(eq(integrations.id, integration.id));
      return row?.sealed ? (JSON.parse(box.decrypt(row.sealed)) as Credentials) : null;
    },
  };
}
