import { z } from 'zod';
import { BUILT_IN_ROLES } from '../constants/permissions.ts';

/** Request and reply shapes of sign-in, users, invitations and clients (SPEC.md §7). */

export const emailSchema = z
  .string()
  .trim()
  .max(254, 'must be at most 254 characters')
  .pipe(z.email('must be a valid e-mail address'))
  .transform((v) => v.toLowerCase());

export const PASSWORD_MIN = 10;
export const passwordSchema = z
  .string()
  .min(PASSWORD_MIN, `must be at least ${PASSWORD_MIN} characters`)
  .max(200, 'must be at most 200 characters');

const name = (what: string) =>
  z.string().trim().min(1, `${what} is required`).max(100, 'must be at most 100 characters');

export const roleSchema = z.enum(
  Object.keys(BUILT_IN_ROLES) as [keyof typeof BUILT_IN_ROLES, ...(keyof typeof BUILT_IN_ROLES)[]],
  {
    message: `must be one of ${Object.keys(BUILT_IN_ROLES).join(', ')}`,
  },
);

export const loginBody = z.object({
  email: z.string().trim().min(1, 'is required').max(254),
  password: z.string().min(1, 'is required').max(200),
});
export const loginReply = z.object({ mfa: z.boolean() });

export const mfaBody = z.object({
  code: z
    .string()
    .trim()
    .regex(/^(\d{6}|[a-z0-9]{5}-?[a-z0-9]{5})$/i, 'must be a 6-digit code or a recovery code'),
});

export const magicLinkBody = z.object({ email: emailSchema });

export const membershipSchema = z.object({
  client_id: z.uuid(),
  client_name: z.string(),
  is_default: z.boolean(),
  role: z.string(),
  permissions: z.array(z.string()),
});
export type Membership = z.infer<typeof membershipSchema>;

export const selfReply = z.object({
  id: z.uuid(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  mfa_enabled: z.boolean(),
  has_password: z.boolean(),
  clients: z.array(membershipSchema),
  /**
   * Set when this session was started by that client's single sign-on: it may act in that client
   * only, and `clients` lists only it. Signing in with a password (or a link) reaches the others.
   */
  sso_client_id: z.uuid().nullable().optional(),
});
export type Self = z.infer<typeof selfReply>;

export const updateSelfBody = z
  .object({
    first_name: name('first name').optional(),
    last_name: name('last name').optional(),
    password: passwordSchema.optional(),
    current_password: z.string().max(200).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'nothing to change' });

export const registerBody = z.object({
  first_name: name('first name'),
  last_name: name('last name'),
  email: emailSchema,
  password: passwordSchema,
  company_name: name('company name'),
});

/**
 * Finishing a sign-up from the e-mailed link (`/register?confirm=`): the sealed link and the password
 * chosen at sign-up, so a link opened by someone else (or a sign-up someone else started with this
 * address) cannot create the account.
 */
export const registerConfirmBody = z.object({
  token: z.string().min(20, 'is not a valid link').max(4000, 'is not a valid link'),
  password: z.string().min(1, 'is required').max(200, 'must be at most 200 characters'),
});

export const resetRequestBody = z.object({ email: emailSchema });
export const resetBody = z.object({
  hash: z.string().min(20, 'is not a valid link').max(200),
  password: passwordSchema,
});

export const mfaEnrolReply = z.object({ secret: z.string(), otpauth_url: z.string(), qr_code: z.string() });
export const mfaConfirmReply = z.object({ recovery_codes: z.array(z.string()) });

export const memberSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  role: z.string(),
  permissions: z.array(z.string()),
});
export type Member = z.infer<typeof memberSchema>;
export const changeRoleBody = z.object({ role: roleSchema });

export const inviteBody = z.object({ email: emailSchema, role: roleSchema });
export const invitationSchema = z.object({
  id: z.uuid(),
  email: z.string(),
  role: z.string(),
  created_at: z.iso.datetime({ offset: true }),
  expires_at: z.iso.datetime({ offset: true }),
});
export type Invitation = z.infer<typeof invitationSchema>;
export const invitationLookupReply = z.object({
  email: z.string(),
  client_id: z.uuid(),
  client_name: z.string(),
  role: z.string(),
  has_account: z.boolean(),
});
export const signupBody = z.object({
  hash: z.string().min(20, 'is not a valid invitation link').max(200),
  first_name: name('first name').optional(),
  last_name: name('last name').optional(),
  password: passwordSchema.optional(),
});

export const clientSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  parent_id: z.uuid().nullable(),
  role: z.string(),
  is_default: z.boolean(),
});
export type Client = z.infer<typeof clientSchema>;
export const createClientBody = z.object({
  name: name('name'),
  /** The client it goes under (issue 42 item 13: explicit); null: none; left out: the current one. */
  parent_id: z.uuid('must be the id (UUID) of one of your clients').nullable().optional(),
});

export const INTEGRATION_SOURCES = [
  'salesloft',
  'outreach',
  'apolloio',
  'salesforce',
  'hubspot',
  'marketo',
  'fileforce',
] as const;
export const integrationSchema = z.object({
  client_id: z.uuid(),
  created_at: z.iso.datetime({ offset: true }),
  id: z.number().int(),
  is_active: z.boolean(),
  source: z.enum(INTEGRATION_SOURCES),
  updated_at: z.iso.datetime({ offset: true }),
  // Beyond SPEC.md §3's fields: what the connections screen and the sync progress bar show.
  account_name: z.string().nullable(),
  last_error: z.string().nullable(),
  /** What the connection cannot see (e.g. a Salesloft non-admin's narrower view); null: everything. */
  access_note: z.string().nullable(),
  /**
   * Issue 42 item 4: sample data the demo seeded, with no credentials behind it: nothing can sync
   * until the client connects its own account. (Optional: older replies and fixtures leave it out.)
   */
  is_demo: z.boolean().optional(),
  /**
   * Issue 40 item 7: the vendor's API calls used against its allocation as its last reply said
   * (Salesforce: the org's calls in the last 24 hours, all its integrations); null: not told.
   * (Optional: older replies and fixtures leave it out.)
   */
  api_usage: z
    .object({ used: z.number().int(), max: z.number().int(), at: z.iso.datetime({ offset: true }) })
    .nullable()
    .optional(),
  is_syncing: z.boolean(),
  last_synced_at: z.iso.datetime({ offset: true }).nullable(),
  sync_progress: z
    .object({
      // Sequence syncs: users, cadences, memberships. CRM syncs (issue 16): stages … activities.
      phase: z.enum([
        'users',
        'cadences',
        'memberships',
        'stages',
        'owners',
        'accounts',
        'contacts',
        'opportunities',
        'history',
        'lists',
        'activities',
        'done',
      ]),
      done: z.number().int(),
      total: z.number().int().nullable(),
    })
    .nullable(),
});
export type Integration = z.infer<typeof integrationSchema>;

export const messageReply = z.object({ message: z.string() });
/** A refusal that may name its fields (the 422 of a schema failure: `errors[].field`). */
export const fieldErrorReply = messageReply.extend({
  errors: z.array(z.object({ field: z.string(), message: z.string() })).optional(),
});

/** 401 of self with a sign-in link for a user with TOTP on: the code step comes next (POST /v1/api/auth/mfa). */
export const mfaRequiredReply = messageReply.extend({ mfa: z.literal(true).optional() });
