export { auditRoutes, AUDIT_OWNER_ONLY } from './routes.ts';
export { auditOrigin, auditRequest, recordAudit, recordAuditForUser } from './record.ts';
export type { AuditActor, AuditInput, AuditOrigin } from './record.ts';
export { purgeAudit, verifyAudit } from './repository.ts';
export { changedFields } from './changes.ts';
