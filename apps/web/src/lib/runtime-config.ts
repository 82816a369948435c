import { useEffect, useState } from 'react';
import type { z } from 'zod';
import { apiRequest } from './api-client.ts';
import type { runtimeConfigSchema } from './runtime-config-schema.ts';

export type RuntimeConfig = z.infer<typeof runtimeConfigSchema>;

/** When the call fails: no add-on, and nothing offered that this installation might not have set up. */
const ADD_ONS_OFF: RuntimeConfig = {
  analytics: null,
  gtm_id: null,
  stripe_publishable_key: null,
  sign_in: { google: false, microsoft: false },
  connect: { salesloft: false, outreach: false, salesforce: false, hubspot: false },
};

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

/** The configuration for a screen: null until the (shared, once per page load) call answers. */
export function useRuntimeConfig(): RuntimeConfig | null {
  const [config, setConfig] = useState<RuntimeConfig | null>(null);
  useEffect(() => {
    let live = true;
    void getRuntimeConfig().then((c) => {
      if (live) setConfig(c);
    });
    return () => {
      live = false;
    };
  }, []);
  return config;
}

/** Sources that connect through the vendor's OAuth app, which the operator may not have set up. */
export type OAuthSource = keyof RuntimeConfig['connect'];
const OAUTH_SOURCES: readonly string[] = ['salesloft', 'outreach', 'salesforce', 'hubspot'];

/**
 * Whether this installation can connect `source`: API-key and file sources always; OAuth sources when
 * their app is set up. Unknown (still loading) counts as available so nothing flickers away.
 */
export function canConnectHere(config: RuntimeConfig | null, source: string): boolean {
  if (!OAUTH_SOURCES.includes(source) || config === null) return true;
  return config.connect[source as OAuthSource];
}

/** What a person is told where a connection this installation has not set up would be. */
export const NOT_AVAILABLE_HERE = 'Not available on this installation — ask your administrator.';
