import { z } from 'zod';

/**
 * SCIM 2.0 provisioning tokens of a client (docs/scim.md, docs/decisions/0029): an owner makes a
 * bearer token for the identity provider (Okta, Microsoft Entra), sees it once, and can revoke it.
 */

/**
 * Roles provisioning may give, one SCIM group each. Ownership is not among them: it is granted inside
 * Rally only, as for single sign-on settings (docs/decisions/0014).
 */
export const SCIM_ROLES = ['blue_admin', 'green_manager', 'yellow_sdr', 'grey_viewer'] as const;
export type ScimRole = (typeof SCIM_ROLES)[number];

/** The group (display) name of each role, as the identity provider shows it. */
export const SCIM_GROUP_NAMES: Record<ScimRole, string> = {
  blue_admin: 'Admin',
  green_manager: 'Manager',
  yellow_sdr: 'SDR',
  grey_viewer: 'Viewer',
};

export const scimTokenBody = z.object({
  name: z.string().trim().min(1, 'is required').max(100, 'must be at most 100 characters'),
  default_role: z.enum(SCIM_ROLES, { error: `must be one of ${SCIM_ROLES.join(', ')}` }),
});
export type ScimTokenBody = z.infer<typeof scimTokenBody>;

export const scimTokenSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  /** The token's first characters, to tell tokens apart. */
  hint: z.string(),
  default_role: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  created_by: z.string().nullable(),
  last_used_at: z.iso.datetime({ offset: true }).nullable(),
  revoked_at: z.iso.datetime({ offset: true }).nullable(),
});
export type ScimToken = z.infer<typeof scimTokenSchema>;

export const scimTokensReply = z.object({
  /** The SCIM base URL to give the identity provider. */
  base_url: z.string(),
  tokens: z.array(scimTokenSchema),
});
export type ScimTokens = z.infer<typeof scimTokensReply>;

/** POST reply: the token itself, shown this once. */
export const scimTokenCreatedReply = z.object({
  token: scimTokenSchema,
  secret: z.string(),
  base_url: z.string(),
});
export type ScimTokenCreated = z.infer<typeof scimTokenCreatedReply>;

export const scimTokenParams = z.object({
  clientId: z.uuid({ error: 'must be the id (UUID) of a client' }),
  id: z.uuid({ error: 'must be the id (UUID) of a token' }),
});
