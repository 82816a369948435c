import { describe, expect, it } from 'vitest';
import { PREVIEW_PAYLOAD, heroWithHeading, renderLandingPageHtml } from './landing-page.ts';
import type { LandingPageView } from './landing-page.ts';

/** Issue 42 item 14: the public page opens with the client's logo and a hero heading. */
const view = (patch: Partial<LandingPageView> = {}): LandingPageView => ({
  payload: { ...PREVIEW_PAYLOAD, hero_html: '<p>Ship twice as fast</p><p>With robots.</p>' },
  colors: { background: '#ffffff', text: '#000000', accent: '#f97316' },
  assignee: null,
  repPhotoUrl: '',
  logoUrl: '/files/0b6c1f3e-8a1d-4c36-9d7e-2f1a5b9c0d11',
  faviconUrl: '',
  buttonName: 'Book a meeting',
  fallbackLink: '',
  values: {},
  ...patch,
});

describe('the landing page hero and logo', () => {
  it("a hero written as paragraphs opens with its first one as the page's h1", () => {
    const html = renderLandingPageHtml(view());
    expect(html).toContain('<div class="rich"><h1>Ship twice as fast</h1><p>With robots.</p></div>');
    expect(html.match(/<h1>/g)).toHaveLength(1);
  });

  it('a hero with a heading of its own is left as written; bare text becomes the heading', () => {
    expect(heroWithHeading('<h2>Hello</h2><p>x</p>')).toBe('<h2>Hello</h2><p>x</p>');
    expect(heroWithHeading('Hello <strong>there</strong>')).toBe('<h1>Hello <strong>there</strong></h1>');
    expect(heroWithHeading('<ul><li>a</li></ul>')).toBe('<ul><li>a</li></ul>');
    expect(heroWithHeading('')).toBe('');
  });

  it("shows the client's uploaded logo in the top bar, and refuses a script URL", () => {
    expect(renderLandingPageHtml(view())).toContain(
      '<img class="logo" src="/files/0b6c1f3e-8a1d-4c36-9d7e-2f1a5b9c0d11"',
    );
    expect(renderLandingPageHtml(view({ logoUrl: 'javascript:alert(1)' }))).not.toContain('class="logo"');
  });
});
