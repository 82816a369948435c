import { z } from 'zod';
import { apiRequest } from './api-client.ts';

/** What GET /v1/api/config says about the third-party add-ons; null means "not configured". */
export const runtimeConfigSchema = z.object({
  analytics: z.object({ key: z.string(), api_host: z.string() }).nullable(),
  gtm_id: z.string().nullable(),
  stripe_publishable_key: z.string().nullable(),
});
export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

const ADD_ONS_OFF: RuntimeConfig = { analytics: null, gtm_id: null, stripe_publishable_key: null };

let cached: Promise<RuntimeConfig> | undefined;

/**
 * Fetched once per page load. When the call fails the add-ons stay off: they are not part of the
 * product contract (SPEC.md §1), so their absence must never break the app.
 */
export function getRuntimeConfig(): Promise<RuntimeConfig> {
  cached ??= apiRequest('/v1/api/config', { schema: runtimeConfigSchema, retries: 1 }).catch(
    (err: unknown) => {
      console.warn('Add-on configuration unavailable; analytics and third-party scripts stay off', err);
      return ADD_ONS_OFF;
    },
  );
  return cached;
}
