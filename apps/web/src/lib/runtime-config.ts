import type { z } from 'zod';
import { apiRequest } from './api-client.ts';
import type { runtimeConfigSchema } from './runtime-config-schema.ts';

export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

const ADD_ONS_OFF: RuntimeConfig = { analytics: null, gtm_id: null, stripe_publishable_key: null };

let cached: Promise<RuntimeConfig> | undefined;

/**
 * Fetched once per page load. When the call fails the add-ons stay off: they are not part of the
 * product contract (SPEC.md §1), so their absence must never break the app.
 */
export function getRuntimeConfig(): Promise<RuntimeConfig> {
  // The schema loads with the call, not with the first download (issue 19: /login JS budget).
  cached ??= import('./runtime-config-schema.ts')
    .then(({ runtimeConfigSchema }) =>
      apiRequest('/v1/api/config', { schema: runtimeConfigSchema, retries: 1 }),
    )
    .catch((err: unknown) => {
      console.warn('Add-on configuration unavailable; analytics and third-party scripts stay off', err);
      return ADD_ONS_OFF;
    });
  return cached;
}
