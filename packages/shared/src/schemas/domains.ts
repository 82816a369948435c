import { z } from 'zod';
import { landingDomainSchema } from './content.ts';

/**
 * A client's verified domains (docs/decisions/0013): a domain is verified by a DNS TXT record at
 * `_rally.<domain>` whose value is `rally-verification=<the client's token>`, and re-checked
 * periodically. Single sign-on vouches only for e-mail addresses on them; the click tag redirects
 * straight only to them.
 */

/** The most domains one client may add. */
export const MAX_CLIENT_DOMAINS = 50;

export const domainBody = z.object({ domain: landingDomainSchema });

/** The TXT record to create at the domain's DNS provider. */
export const verificationRecordSchema = z.object({
  type: z.literal('TXT'),
  name: z.string(),
  value: z.string(),
});
export type VerificationRecord = z.infer<typeof verificationRecordSchema>;

export const clientDomainSchema = z.object({
  id: z.uuid(),
  domain: z.string(),
  verified: z.boolean(),
  verified_at: z.iso.datetime({ offset: true }).nullable(),
  last_checked_at: z.iso.datetime({ offset: true }).nullable(),
  /** What the last check found, in words for the screen; null before the first check. */
  last_check_message: z.string().nullable(),
  dns_record: verificationRecordSchema,
  created_at: z.iso.datetime({ offset: true }),
});
export type ClientDomain = z.infer<typeof clientDomainSchema>;

export const clientDomainsReply = z.object({
  /** The TXT value every domain of this client needs (the record's name differs per domain). */
  txt_value: z.string(),
  domains: z.array(clientDomainSchema),
});
export type ClientDomains = z.infer<typeof clientDomainsReply>;

export const domainParams = z.object({
  clientId: z.uuid({ error: 'must be the id (UUID) of a client' }),
  id: z.uuid({ error: 'must be the id (UUID) of a domain' }),
});
