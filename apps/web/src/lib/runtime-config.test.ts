import { afterEach, describe, expect, it, vi } from 'vitest';
import { fakeServer } from '../testing/render.tsx';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.resetModules();
});

describe('getRuntimeConfig', () => {
  it('fetches /v1/api/config once and shares the reply', async () => {
    const reply = {
      analytics: { key: 'phc_x', api_host: '/ingest/ph' },
      gtm_id: null,
      stripe_publishable_key: null,
    };
    const server = fakeServer({ '/v1/api/config': { body: reply } });
    vi.stubGlobal('fetch', server.fetchFn);
    const { getRuntimeConfig } = await import('./runtime-config.ts');
    expect(await getRuntimeConfig()).toEqual(reply);
    expect(await getRuntimeConfig()).toEqual(reply);
    expect(server.calls.filter((c) => c.url === '/v1/api/config')).toHaveLength(1);
  });

  it('turns every add-on off when the call fails', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    vi.stubGlobal('fetch', fakeServer({}).fetchFn);
    const { getRuntimeConfig } = await import('./runtime-config.ts');
    expect(await getRuntimeConfig()).toEqual({ analytics: null, gtm_id: null, stripe_publishable_key: null });
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});
