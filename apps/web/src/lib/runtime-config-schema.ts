import { z } from 'zod';

/** What GET /v1/api/config says about the third-party add-ons ("not configured" is null) and the offers. */
export const runtimeConfigSchema = z.object({
  analytics: z.object({ key: z.string(), api_host: z.string() }).nullable(),
  gtm_id: z.string().nullable(),
  stripe_publishable_key: z.string().nullable(),
  /** Issue 42 item 3: only the sign-in providers and vendor connections set up here are offered. */
  sign_in: z.object({ google: z.boolean(), microsoft: z.boolean() }),
  connect: z.object({
    salesloft: z.boolean(),
    outreach: z.boolean(),
    salesforce: z.boolean(),
    hubspot: z.boolean(),
  }),
});
