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
      sign_in: { google: true, microsoft: false },
      connect: { salesloft: true, outreach: false, salesforce: false, hubspot: true },
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
    expect(await getRuntimeConfig()).toEqual({
      analytics: null,
      gtm_id: null,
      stripe_publishable_key: null,
      sign_in: { google: false, microsoft: false },
      connect: { salesloft: false, outreach: false, salesforce: false, hubspot: false },
    });
    expect(warn).toHaveBeenCalled();
    warn.mockRestore();
  });
});

describe('canConnectHere (issue 42 item 3)', () => {
  it('API-key and file sources always; OAuth sources as the server says; loading counts as yes', async () => {
    const { canConnectHere } = await import('./runtime-config.ts');
    const config = {
      analytics: null,
      gtm_id: null,
      stripe_publishable_key: null,
      sign_in: { google: false, microsoft: false },
      connect: { salesloft: false, outreach: true, salesforce: false, hubspot: true },
    };
    expect(canConnectHere(config, 'salesloft')).toBe(false);
    expect(canConnectHere(config, 'outreach')).toBe(true);
    expect(canConnectHere(config, 'salesforce')).toBe(false);
    expect(canConnectHere(config, 'apolloio')).toBe(true);
    expect(canConnectHere(config, 'fileforce')).toBe(true);
    expect(canConnectHere(config, 'marketo')).toBe(true);
    expect(canConnectHere(null, 'salesloft')).toBe(true);
  });
});
