import { z } from 'zod';

/**
 * The audit log (issue 44; docs/decisions/0028): an append-only record per client of who did what
 * and from where, each entry chained to the one before by SHA-256. Owners read it.
 */

/** Every action the log records. New kinds are added here, never made up at the call site. */
export const AUDIT_ACTIONS = [
  'auth.sign_in',
  'auth.sign_in_failed',
  'auth.mfa_enabled',
  'auth.mfa_disabled',
  'auth.password_changed',
  'sso.settings_changed',
  'sso.single_logout',
  'sso.metadata_refreshed',
  'member.role_changed',
  'member.removed',
  'member.added',
  'member.updated',
  'member.deactivated',
  'member.reactivated',
  'invitation.sent',
  'invitation.revoked',
  'integration.connected',
  'integration.removed',
  'crm.connected',
  'crm.removed',
  'ad_network.connected',
  'ad_network.removed',
  'settings.changed',
  'export.requested',
  'export.downloaded',
  'shared_link.created',
  'shared_link.revoked',
  'billing.changed',
  'erasure.performed',
  'audit.exported',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What a person reads for each action (the screen and the CSV). */
export const AUDIT_ACTION_LABELS: Record<AuditAction, string> = {
  'auth.sign_in': 'Signed in',
  'auth.sign_in_failed': 'Failed sign-in',
  'auth.mfa_enabled': 'Turned two-step verification on',
  'auth.mfa_disabled': 'Turned two-step verification off',
  'auth.password_changed': 'Changed password',
  'sso.settings_changed': 'Changed single sign-on',
  'sso.single_logout': 'Signed out by the identity provider (SAML single logout)',
  'sso.metadata_refreshed': 'Identity provider metadata refreshed (SAML)',
  'member.role_changed': "Changed a member's role",
  'member.removed': 'Removed a member',
  'member.added': 'Added a member',
  'member.updated': "Changed a member's details",
  'member.deactivated': 'Deactivated a member',
  'member.reactivated': 'Reactivated a member',
  'invitation.sent': 'Sent an invitation',
  'invitation.revoked': 'Revoked an invitation',
  'integration.connected': 'Connected an integration',
  'integration.removed': 'Removed an integration',
  'crm.connected': 'Connected a CRM',
  'crm.removed': 'Removed a CRM',
  'ad_network.connected': 'Connected an ad network',
  'ad_network.removed': 'Removed an ad network',
  'settings.changed': 'Changed settings',
  'export.requested': 'Asked for an export',
  'export.downloaded': 'Downloaded an export',
  'shared_link.created': 'Shared a link',
  'shared_link.revoked': 'Revoked a shared link',
  'billing.changed': 'Changed billing',
  'erasure.performed': 'Erased a person',
  'audit.exported': 'Exported the audit log',
};

/** Hash of "no entry before": the first entry of a client's chain follows it. */
export const AUDIT_GENESIS_HASH = '0'.repeat(64);
export const AUDIT_PAGE_SIZE = { default: 50, max: 200 } as const;

export const auditEntrySchema = z.object({
  id: z.string(),
  seq: z.number().int(),
  created_at: z.string(),
  actor_user_id: z.string().nullable(),
  actor_email: z.string().nullable(),
  action: z.enum(AUDIT_ACTIONS),
  target_kind: z.string().nullable(),
  target_id: z.string().nullable(),
  details: z.record(z.string(), z.unknown()),
  ip: z.string().nullable(),
  user_agent: z.string().nullable(),
  hash: z.string(),
});
export type AuditEntry = z.infer<typeof auditEntrySchema>;

const isoDate = (what: string) =>
  z
    .string({ error: `must be ${what}` })
    .refine(
      (s) => /^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)),
      {
        message: `must be ${what}`,
      },
    );

const auditFilters = z.object({
  actor: z.uuid('must be the id (UUID) of a user').optional(),
  action: z.enum(AUDIT_ACTIONS, { message: 'must be one of the audit actions' }).optional(),
  target_kind: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(60, 'must be at most 60 characters')
    .optional(),
  target_id: z
    .string()
    .trim()
    .min(1, 'must not be empty')
    .max(200, 'must be at most 200 characters')
    .optional(),
  from: isoDate('a date (YYYY-MM-DD) or a time (ISO 8601)').optional(),
  to: isoDate('a date (YYYY-MM-DD) or a time (ISO 8601)').optional(),
});
const fromNotAfterTo = (q: { from?: string | undefined; to?: string | undefined }) =>
  !q.from || !q.to || Date.parse(q.from) <= Date.parse(q.to);
const toAfterFrom = { path: ['to'], message: 'must not be before from' };

/** `GET /v1/rest/client/{id}/audit_log/export`: the list's filters. */
export const auditExportQuery = auditFilters.refine(fromNotAfterTo, toAfterFrom);
export type AuditExportQuery = z.infer<typeof auditExportQuery>;

/** `GET /v1/rest/client/{id}/audit_log`: filters; `cursor` is the last `seq` of the page before. */
export const auditListQuery = auditFilters
  .extend({
    cursor: z.coerce
      .number({ error: 'must be the cursor of the page before' })
      .int('must be the cursor of the page before')
      .min(1, 'must be the cursor of the page before')
      .max(Number.MAX_SAFE_INTEGER, 'must be the cursor of the page before')
      .optional(),
    limit: z.coerce
      .number({ error: 'must be a whole number' })
      .int('must be a whole number')
      .min(1, 'must be at least 1')
      .max(AUDIT_PAGE_SIZE.max, `must be at most ${AUDIT_PAGE_SIZE.max}`)
      .default(AUDIT_PAGE_SIZE.default),
  })
  .refine(fromNotAfterTo, toAfterFrom);
export type AuditListQuery = z.infer<typeof auditListQuery>;

export const auditListReply = z.object({
  items: z.array(auditEntrySchema),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.number().int().nullable(),
});
export type AuditListReply = z.infer<typeof auditListReply>;

/** `GET /v1/rest/client/{id}/audit_log/verify`: the chain walked from its anchor. */
export const auditVerifyReply = z.object({
  ok: z.boolean(),
  /** Entries checked. */
  checked: z.number().int(),
  /** Where the walk started: the genesis, or the anchor a retention purge left (seq and hash). */
  anchor_seq: z.number().int(),
  anchor_hash: z.string(),
  /** The first entry that does not follow from the one before (or whose content was changed). */
  first_broken: z.object({ id: z.string(), seq: z.number().int(), reason: z.string() }).nullable(),
  head_hash: z.string(),
});
export type AuditVerifyReply = z.infer<typeof auditVerifyReply>;
