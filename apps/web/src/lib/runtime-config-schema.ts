import { z } from 'zod';

/** What GET /v1/api/config says about the third-party add-ons; null means "not configured". */
export const runtimeConfigSchema = z.object({
  analytics: z.object({ key: z.string(), api_host: z.string() }).nullable(),
  gtm_id: z.string().nullable(),
  stripe_publishable_key: z.string().nullable(),
});
