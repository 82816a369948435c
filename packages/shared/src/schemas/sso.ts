import { z } from 'zod';
import { emailSchema } from './auth.ts';

/** Request and reply shapes of OAuth sign-in (Google, Microsoft) and SSO by username (ARCHITECTURE.md §4). */

/** OAuth providers offered on the sign-in page; each has `GET /v1/api/auth/{provider}`. */
export const OAUTH_PROVIDERS = ['google', 'microsoft'] as const;
export type OAuthProvider = (typeof OAUTH_PROVIDERS)[number];

/**
 * Why a sign-in through a provider failed: the `error` query parameter of `/auth/callback`, which the
 * app turns into a message.
 */
export const OAUTH_ERRORS = [
  /** The sign-in took too long, was started in another browser, or its state was tampered with. */
  'invalid_state',
  /** The user cancelled at the provider. */
  'access_denied',
  /** The provider could not be reached or answered with an error. */
  'provider_error',
  /** The provider gave no e-mail address. */
  'no_email',
  /**
   * The provider did not say it verified the address (Microsoft work accounts often do not): the user
   * signs in another way and links the provider in their profile (docs/decisions/0015).
   */
  'email_unverified',
  /** No Rally account has that e-mail address. */
  'no_account',
  /** SSO: the identity provider signed in someone with another e-mail address. */
  'email_mismatch',
  /** SSO: the address's domain is not one the organisation has verified (docs/decisions/0013). */
  'domain_unverified',
  /**
   * SSO: the identity provider signed in another account than the one linked to this user. Google or
   * Microsoft: the address's account is linked to another account of that provider.
   */
  'identity_mismatch',
  /** The provider or the organisation's single sign-on was switched off meanwhile. */
  'not_configured',
  /**
   * SSO start: no single sign-on covers that address (or no account has it: the answer is the same,
   * so it does not tell accounts apart).
   */
  'sso_unavailable',
  /** SAML: the response was unsigned, signed by another certificate, expired or for another audience. */
  'assertion_invalid',
  /** SAML: that assertion was already used to sign in. */
  'assertion_replayed',
  /** SAML: the identity provider started the sign-in, which the organisation does not allow. */
  'idp_initiated_off',
  /** SAML: the organisation requires encrypted assertions and this one was not encrypted. */
  'assertion_unencrypted',
] as const;
export type OAuthError = (typeof OAUTH_ERRORS)[number];

/** Why linking a provider to the signed-in account failed: `link_error` of `/settings/profile`. */
export const OAUTH_LINK_ERRORS = [
  /** Took too long, started in another browser or by another user, or the session ended meanwhile. */
  'invalid_state',
  /** That provider account is linked to another Rally user. */
  'identity_taken',
  'no_account',
] as const;

/** POST /v1/api/auth/{provider}/link: the provider's URL for the browser to open. */
export const oauthLinkReply = z.object({ url: z.string() });

/** GET /v1/api/auth/identities: the provider accounts that sign the user in. */
export const oauthIdentitiesReply = z.object({
  identities: z.array(
    z.object({
      provider: z.enum(OAUTH_PROVIDERS),
      /** The address the provider gave when linked. */
      email: z.string(),
      linked_at: z.string(),
    }),
  ),
});
export type OAuthIdentities = z.infer<typeof oauthIdentitiesReply>;

/** Plain http is accepted only for identity providers on this machine (development and tests). */
const LOOPBACK_HTTP = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$)/i;

/**
 * An OpenID Connect issuer identifier: an https URL without query, fragment or credentials (plain
 * http only on loopback, for local identity providers and tests).
 */
export const issuerSchema = z
  .string()
  .trim()
  .max(500, 'must be at most 500 characters')
  .pipe(z.url({ protocol: /^https?$/, message: 'must be a URL, e.g. https://login.example.com' }))
  .refine((v) => /^https:\/\//i.test(v) || LOOPBACK_HTTP.test(v), { message: 'must start with https://' })
  .refine((v) => !/[?#@]/.test(v), { message: 'must not contain a query, a fragment or credentials' });

export const ssoStartQuery = z.object({ username: emailSchema });

export const ssoSettingsBody = z.object({
  issuer: issuerSchema,
  client_id: z.string().trim().min(1, 'is required').max(500, 'must be at most 500 characters'),
  /** Required when none is stored yet (or the client id changes); omit it to keep the stored one. */
  client_secret: z
    .string()
    .min(1, 'must not be empty')
    .max(2000, 'must be at most 2000 characters')
    .optional(),
  enabled: z.boolean(),
});
export type SsoSettingsBody = z.infer<typeof ssoSettingsBody>;

/** The stored settings; the client secret is never sent back, only whether one is stored. */
export const ssoSettingsReply = z.object({
  issuer: z.string(),
  client_id: z.string(),
  enabled: z.boolean(),
  has_secret: z.boolean(),
  /** The client's verified domains: single sign-on signs in only addresses on these (and their subdomains). */
  domains: z.array(z.string()),
});
export type SsoSettings = z.infer<typeof ssoSettingsReply>;
