import { describe, expect, it } from 'vitest';
import {
  AD_SIZES,
  adSizeDimensions,
  adSizeSchema,
  assigneeSchema,
  clientSettingsUpdateBody,
  colorsSchema,
  contentCreateBody,
  contentStatusSchema,
  contentUpdateBody,
  isoDatetimeSchema,
  landingDomainSchema,
  landingPagePayloadSchema,
  templateIdSchema,
  urlOrEmptySchema,
  uuidSchema,
} from './content.ts';

const messages = (r: { success: boolean; error?: { issues: { message: string; path: PropertyKey[] }[] } }) =>
  r.error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [];

describe('"template_id: whole number 1 to 4" (SPEC.md §5)', () => {
  it.each([1, 2, 3, 4])('accepts %s', (v) => expect(templateIdSchema.parse(v)).toBe(v));
  it.each([0, 5, 2.5, '2', -1, null, Number.NaN, Infinity])('refuses %s with a clear message', (v) => {
    const r = templateIdSchema.safeParse(v);
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe('must be a whole number from 1 to 4');
  });
  it('names the field in a body', () => {
    expect(messages(contentCreateBody.safeParse({ template_id: '2' }))).toEqual([
      ['template_id', 'must be a whole number from 1 to 4'],
    ]);
  });
});

describe('"Hex color: 6 hexadecimal digits with optional #; otherwise error \'is not a valid hex color\'" (SPEC.md §5)', () => {
  it.each(['#A1b2C3', 'a1b2c3', '#ffffff', '000000'])('accepts %s', (c) => {
    expect(colorsSchema.safeParse({ background: c, text: c, accent: c, primary: c }).success).toBe(true);
  });
  it.each(['fff', '#GGGGGG', '#fffffff', '', 'red', '#12345', 123456])('refuses %s', (c) => {
    for (const field of ['background', 'text', 'accent', 'primary']) {
      expect(messages(colorsSchema.safeParse({ [field]: c }))).toEqual([[field, 'is not a valid hex color']]);
    }
  });
  it('"background (default #ffffff), text (default #000000), accent (default #000000), primary (optional)" (SPEC.md §3)', () => {
    expect(colorsSchema.parse({})).toEqual({ background: '#ffffff', text: '#000000', accent: '#000000' });
    expect(colorsSchema.parse({ primary: null }).primary).toBeNull();
  });
});

describe('other fields of SPEC.md §3 and §5', () => {
  it('"Ad sizes: 1080x1080, 1200x628, 728x90, 300x250"', () => {
    expect(AD_SIZES).toEqual(['1080x1080', '1200x628', '728x90', '300x250']);
    expect(adSizeSchema.safeParse('1080x1080').success).toBe(true);
    expect(adSizeSchema.safeParse('1080x1081').error?.issues[0]?.message).toBe(
      'must be one of 1080x1080, 1200x628, 728x90, 300x250',
    );
    expect(adSizeDimensions('728x90')).toEqual({ width: 728, height: 90 });
  });

  it('"Content status: draft or published"', () => {
    expect(contentStatusSchema.safeParse('draft').success).toBe(true);
    expect(contentStatusSchema.safeParse('published').success).toBe(true);
    expect(contentStatusSchema.safeParse('archived').error?.issues[0]?.message).toBe(
      'must be draft or published',
    );
    expect(contentCreateBody.parse({}).status).toBe('draft');
  });

  it('is_archived is a boolean, not "true"', () => {
    expect(messages(contentUpdateBody.safeParse({ is_archived: 'true' }))).toEqual([
      ['is_archived', 'must be true or false'],
    ]);
  });

  it('"created_at and updated_at must be ISO datetimes"', () => {
    expect(isoDatetimeSchema.safeParse('2025-01-31T09:30:00Z').success).toBe(true);
    expect(isoDatetimeSchema.safeParse('2025-01-31T09:30:00.123+02:00').success).toBe(true);
    for (const bad of ['2025-01-31', '31/01/2025 09:30', 'yesterday', 1738315800]) {
      expect(isoDatetimeSchema.safeParse(bad).success).toBe(false);
    }
    expect(messages(contentUpdateBody.safeParse({ updated_at: 'now' }))[0]?.[0]).toBe('updated_at');
  });

  it('"client_id values must be UUIDs" (and other ids)', () => {
    expect(uuidSchema('the id of a landing page').safeParse('123').error?.issues[0]?.message).toBe(
      'must be the id of a landing page (a UUID)',
    );
    expect(contentCreateBody.safeParse({ landing_page_id: 'x' }).success).toBe(false);
  });

  it('"Assignee: first_name, last_name, title, company_name, website, calendar_url; all optional strings defaulting to empty"', () => {
    expect(assigneeSchema.parse({})).toEqual({
      first_name: '',
      last_name: '',
      title: '',
      company_name: '',
      website: '',
      calendar_url: '',
    });
    expect(messages(assigneeSchema.safeParse({ first_name: 5 }))).toEqual([['first_name', 'must be text']]);
    expect(messages(assigneeSchema.safeParse({ calendar_url: 'javascript:alert(1)' }))).toEqual([
      ['calendar_url', 'must be an http(s) URL'],
    ]);
  });

  it('landing page payload: HTML fields default to empty, hero_img must be http(s) or an upload', () => {
    expect(landingPagePayloadSchema.parse({})).toEqual({
      content_html: '',
      footer_html: '',
      hero_html: '',
      hero_img: '',
    });
    expect(urlOrEmptySchema.safeParse('/files/0b8f3a6e-1111-4222-8333-444455556666').success).toBe(true);
    expect(urlOrEmptySchema.safeParse('https://cdn.example.com/a.png').success).toBe(true);
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AAAA', '/etc/passwd', '//evil.com/x']) {
      expect(urlOrEmptySchema.safeParse(bad).success, bad).toBe(false);
    }
  });

  it('text fields refuse NUL (PostgreSQL cannot store it) and overlong values', () => {
    expect(messages(contentCreateBody.safeParse({ title: 'a\u0000b' }))).toEqual([
      ['title', 'must not contain NUL characters'],
    ]);
    expect(messages(contentCreateBody.safeParse({ title: 'x'.repeat(201) }))).toEqual([
      ['title', 'must be at most 200 characters'],
    ]);
  });

  it('client settings: hex colours, http(s) links, boolean revenue_report_enabled', () => {
    expect(messages(clientSettingsUpdateBody.safeParse({ colors: { accent: 'fff' } }))).toEqual([
      ['colors.accent', 'is not a valid hex color'],
    ]);
    expect(messages(clientSettingsUpdateBody.safeParse({ website_url: 'acme.com' }))).toEqual([
      ['website_url', 'must be an http(s) URL'],
    ]);
    expect(clientSettingsUpdateBody.safeParse({ revenue_report_enabled: 'yes' }).success).toBe(false);
  });

  it('landing domain: a lower-cased host name with two labels or more', () => {
    expect(landingDomainSchema.parse(' Go.Acme.COM. ')).toBe('go.acme.com');
    for (const bad of [
      'acme',
      'https://go.acme.com',
      'go.acme.com/lp',
      'go.acme.com:8080',
      '10.0.0.1',
      '-a.acme.com',
      'a..com',
      '',
    ]) {
      expect(landingDomainSchema.safeParse(bad).success, bad).toBe(false);
    }
  });
});
