import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const gtmScripts = () => document.querySelectorAll('script[src^="https://www.googletagmanager.com/gtm.js"]');

let warn: ReturnType<typeof vi.spyOn>;
beforeEach(() => {
  localStorage.clear();
  vi.resetModules();
  document.head.innerHTML = '';
  delete window.dataLayer;
  warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
});
afterEach(() => warn.mockRestore());

describe('isValidGtmId (SPEC.md §5)', () => {
  it('accepts GTM- followed by uppercase letters and digits only', async () => {
    const { isValidGtmId } = await import('./tag-manager.ts');
    expect(isValidGtmId('GTM-ABC123')).toBe(true);
    for (const bad of ['GTM-abc', 'GT-123', '', 'GTM-', 'gtm-ABC123', 'GTM-ABC 123']) {
      expect(isValidGtmId(bad)).toBe(false);
    }
  });
});

describe('startTagManager', () => {
  it('loads nothing when no id is configured, or the id is invalid', async () => {
    localStorage.setItem('rally.analytics-consent', 'granted');
    const { startTagManager } = await import('./tag-manager.ts');
    expect(startTagManager(null).loaded).toBe(false);
    expect(startTagManager('GTM-abc').loaded).toBe(false);
    expect(warn).toHaveBeenCalled();
    expect(gtmScripts()).toHaveLength(0);
  });

  it('loads the container at once when consent was granted', async () => {
    localStorage.setItem('rally.analytics-consent', 'granted');
    const { startTagManager } = await import('./tag-manager.ts');
    expect(startTagManager('GTM-ABC123').loaded).toBe(true);
    expect(gtmScripts()).toHaveLength(1);
    expect(gtmScripts()[0]?.getAttribute('src')).toBe(
      'https://www.googletagmanager.com/gtm.js?id=GTM-ABC123',
    );
    expect(window.dataLayer).toEqual([expect.objectContaining({ event: 'gtm.js' })]);
  });

  it('waits for consent, and never loads when it is declined', async () => {
    const analytics = await import('./analytics.ts');
    const { startTagManager } = await import('./tag-manager.ts');
    expect(startTagManager('GTM-ABC123').loaded).toBe(false);
    expect(gtmScripts()).toHaveLength(0);
    analytics.setConsent('denied');
    expect(gtmScripts()).toHaveLength(0);
    analytics.setConsent('granted');
    expect(gtmScripts()).toHaveLength(1);
  });
});
