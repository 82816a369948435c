import { createLinkedInAdapter } from '../src/modules/ad-networks/linkedin/adapter.ts';
import type { AdapterContext, Credentials } from '../src/modules/integrations/port.ts';
import type { FakeLinkedIn } from './fakes/linkedin.ts';

type LinkedInConfig = Parameters<typeof createLinkedInAdapter>[0];

/** The adapter's configuration for the strict fake (its app's id, secret and API version). */
export function linkedInConfig(fake: FakeLinkedIn, over: Partial<LinkedInConfig> = {}): LinkedInConfig {
  return {
    apiUrl: fake.url,
    authUrl: fake.url,
    apiVersion: fake.version,
    clientId: fake.clientId,
    clientSecret: fake.clientSecret,
    sourcePlatform: 'RALLY',
    ...over,
  };
}

/**
 * The LinkedIn adapter pointed at the strict fake, with a fresh token pair and retries that do not
 * sleep: what the adapter tests of campaigns and companies start from.
 */
export function linkedInOnFake(fake: FakeLinkedIn) {
  const li = createLinkedInAdapter(linkedInConfig(fake), {
    retry: { sleep: async () => undefined, baseDelayMs: 1 },
  });
  const tokens = fake.mintTokens();
  const creds: Credentials = {
    kind: 'oauth',
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    expiresAt: new Date(Date.now() + 30 * 86_400_000).toISOString(),
  };
  const ctx: AdapterContext = { credentials: () => creds, saveCredentials: async () => undefined };
  return { li, ctx, token: tokens.accessToken };
}
