import { z } from 'zod';
import { SCIM_ROLES } from './scim.ts';

/** A client's SAML 2.0 single sign-on settings (docs/saml.md, docs/decisions/0035). */

export const SAML_NAMEID_FORMATS = [
  'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress',
  'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
] as const;

/** Roles just-in-time membership may give: never ownership (as for SCIM, decision 0014). */
export const SAML_JIT_ROLES = SCIM_ROLES;

const optionalName = z
  .string()
  .trim()
  .max(200, 'must be at most 200 characters')
  .nullish()
  .transform((v) => (v ? v : null));

const certificate = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(20_000, 'must be at most 20000 characters');

/**
 * Either `metadata_xml` (pasted), or `metadata_url` (fetched now), or `idp_entity_id` + `sso_url`
 * + `certificates` by hand. Several certificates are accepted at once for rotation.
 */
export const samlSettingsBody = z.object({
  enabled: z.boolean(),
  metadata_xml: z.string().max(200_000, 'must be at most 200000 characters').nullish(),
  metadata_url: z
    .string()
    .trim()
    .max(2000, 'must be at most 2000 characters')
    .pipe(z.url({ protocol: /^https?$/, message: 'must be a URL, e.g. https://idp.example.com/metadata' }))
    .nullish(),
  idp_entity_id: z
    .string()
    .trim()
    .min(1, 'is required')
    .max(1000, 'must be at most 1000 characters')
    .nullish(),
  sso_url: z
    .string()
    .trim()
    .max(2000, 'must be at most 2000 characters')
    .pipe(z.url({ protocol: /^https?$/, message: 'must be a URL, e.g. https://idp.example.com/sso' }))
    .nullish(),
  certificates: z.array(certificate).max(5, 'at most 5 certificates').nullish(),
  name_id_format: z.enum(SAML_NAMEID_FORMATS, {
    error: `must be one of ${SAML_NAMEID_FORMATS.join(', ')}`,
  }),
  email_attribute: optionalName,
  first_name_attribute: optionalName,
  last_name_attribute: optionalName,
  jit_enabled: z.boolean(),
  jit_role: z.enum(SAML_JIT_ROLES, { error: `must be one of ${SAML_JIT_ROLES.join(', ')}` }),
  idp_initiated: z.boolean(),
  /** Sign our AuthnRequests even when the IdP's metadata does not ask (WantAuthnRequestsSigned). */
  sign_requests: z.boolean().default(false),
  /** Refuse assertions not encrypted to our certificate. */
  require_encryption: z.boolean().default(false),
  /** The IdP's single logout URL (HTTP-Redirect), when entered by hand; metadata gives its own. */
  slo_url: z
    .string()
    .trim()
    .max(2000, 'must be at most 2000 characters')
    .pipe(z.url({ protocol: /^https?$/, message: 'must be a URL, e.g. https://idp.example.com/slo' }))
    .nullish(),
});
export type SamlSettingsBody = z.input<typeof samlSettingsBody>;

export const samlSettingsReply = z.object({
  enabled: z.boolean(),
  idp_entity_id: z.string(),
  sso_url: z.string(),
  /** Each certificate's SHA-256 fingerprint and end of validity, never needed back in full. */
  certificates: z.array(z.object({ fingerprint: z.string(), not_after: z.string().nullable() })),
  metadata_url: z.string().nullable(),
  name_id_format: z.string(),
  email_attribute: z.string().nullable(),
  first_name_attribute: z.string().nullable(),
  last_name_attribute: z.string().nullable(),
  jit_enabled: z.boolean(),
  jit_role: z.string(),
  idp_initiated: z.boolean(),
  /** What to give the identity provider: our entity ID, ACS URL and metadata URL. */
  sp_entity_id: z.string(),
  acs_url: z.string(),
  sp_metadata_url: z.string(),
  login_url: z.string(),
  /** Our single logout endpoint (HTTP-POST and HTTP-Redirect), and the IdP's, if it has one. */
  sp_slo_url: z.string(),
  slo_url: z.string().nullable(),
  /** Our certificate (PEM) for signing and encryption, to give the IdP, and its fingerprint. */
  sp_certificate: z.string(),
  sp_certificate_fingerprint: z.string(),
  sign_requests: z.boolean(),
  /** The IdP's metadata asks for signed AuthnRequests: they are signed whatever sign_requests says. */
  idp_wants_signed_requests: z.boolean(),
  require_encryption: z.boolean(),
  /** The metadata URL's daily re-fetch: last success, last try, and the last try's error (else null). */
  metadata_fetched_at: z.string().nullable(),
  metadata_checked_at: z.string().nullable(),
  metadata_error: z.string().nullable(),
  domains: z.array(z.string()),
});
export type SamlSettings = z.infer<typeof samlSettingsReply>;
