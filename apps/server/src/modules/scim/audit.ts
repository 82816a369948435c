import type { AuditAction } from '@rally/shared/schemas/audit';
import type { Db } from '../../db/client.ts';
import { recordAudit } from '../audit/record.ts';
import type { DbOrTx } from './membership.ts';
import type { ScimCaller } from './tokens.ts';

/**
 * Records a change provisioning made (issue 44: "SSO and role changes" in the audit log), in the
 * transaction of the change (`tx`), so an entry exists exactly when the change does. The actor is
 * the SCIM token, not a person: no user id or e-mail, and `details.actor` names the token (its id
 * and name; never the secret, which is not known here). Address and user agent are the identity
 * provider's request's.
 */
export async function auditScim(
  tx: DbOrTx,
  caller: ScimCaller,
  action: AuditAction,
  userId: string,
  details: Record<string, unknown>,
): Promise<void> {
  // A transaction is a database (drizzle's PgTransaction extends PgDatabase): the append runs in a
  // savepoint of the caller's transaction and holds the client's chain head until it commits.
  await recordAudit(tx as Db, {
    clientId: caller.clientId,
    action,
    actor: null,
    target: { kind: 'user', id: userId },
    details: { ...details, actor: { kind: 'scim', id: caller.tokenId, name: caller.tokenName } },
    ip: caller.origin?.ip ?? null,
    userAgent: caller.origin?.userAgent ?? null,
  });
}
