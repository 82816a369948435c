import { describe, expect, it } from 'vitest';
import { APP_ROUTES, matchAppRoute, matchPattern, needsIntegration } from './routes.ts';
import type { AppRoute } from './routes.ts';

describe('route table (SPEC.md §2)', () => {
  it('declares every route of the spec once', () => {
    const paths = APP_ROUTES.map((r) => r.path);
    for (const p of [
      '/',
      '/feed',
      '/login',
      '/signup',
      '/register',
      '/clients',
      '/revenue',
      '/prospects',
      '/onboarding',
      '/cadence',
      '/cadence/:id',
      '/auth/callback',
      '/reset-password',
      '/change-password',
      '/settings/domain',
      '/settings/billing',
      '/settings/profile',
      '/settings/connections',
      '/settings/users',
      '/settings/integrations/*',
      '/client-settings/website',
      '/client-settings/facebook',
      '/client-settings/sales-reps',
      '/lp/preview',
      '/lp/:base58',
      '/content/preview/:base58/:resolution',
    ]) {
      expect(paths, p).toContain(p);
    }
    expect(new Set(paths).size).toBe(paths.length);
  });

  it('"/clients | Needs permission client.read" and billing needs billing_details.read', () => {
    expect(matchAppRoute('/clients')?.route.permission).toBe('client.read');
    expect(matchAppRoute('/settings/billing')?.route.permission).toBe('billing_details.read');
  });

  it('"/auth/callback | Empty layout" and "/login | Auth layout"', () => {
    expect(matchAppRoute('/auth/callback')?.route.layout).toBe('empty');
    expect(matchAppRoute('/login')?.route.layout).toBe('auth');
    expect(matchAppRoute('/lp/preview')?.route.layout).toBe('empty');
  });

  it('"Login, signup, change-password and reset-password are exempt from the login requirement"', () => {
    for (const p of ['/login', '/signup', '/change-password', '/reset-password']) {
      expect(matchAppRoute(p)?.route.exempt, p).toBe(true);
    }
    expect(matchAppRoute('/feed')?.route.exempt).toBeUndefined();
  });

  it('"/signup and /register | Guest only"', () => {
    expect(matchAppRoute('/signup')?.route.guestOnly).toBe(true);
    expect(matchAppRoute('/register')?.route.guestOnly).toBe(true);
  });

  it('prefers the literal /lp/preview over /lp/{base58}', () => {
    expect(matchAppRoute('/lp/preview')?.route.id).toBe('lp-preview');
    expect(matchAppRoute('/lp/3mJr7AoUXx2Wqd')).toMatchObject({
      route: { id: 'landing-page' },
      params: { base58: '3mJr7AoUXx2Wqd' },
    });
  });

  it('matches the catch-all and parameters, and nothing else', () => {
    expect(matchAppRoute('/settings/integrations/salesforce/fields')?.params['*']).toBe('salesforce/fields');
    expect(matchAppRoute('/cadence/42/')?.params).toEqual({ id: '42' });
    expect(matchAppRoute('/content/preview/abc/300x250')?.params).toEqual({
      base58: 'abc',
      resolution: '300x250',
    });
    expect(matchAppRoute('/no-such-page')).toBeNull();
    expect(matchAppRoute('/cadence/1/2')).toBeNull();
    expect(matchPattern('/lp/:id', '/lp/%E0%A4%A')).toBeNull();
  });

  it('content studio: /content/{id} and /landing-pages/{id} beside the content preview', () => {
    expect(matchAppRoute('/content')?.route.id).toBe('content');
    expect(matchAppRoute('/content/0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a69')).toMatchObject({
      route: { id: 'content-item', title: 'Ad creative' },
      params: { id: '0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a69' },
    });
    expect(matchAppRoute('/content/preview/abc/300x250')?.route.id).toBe('content-preview');
    expect(matchAppRoute('/landing-pages')?.route.id).toBe('landing-pages');
    expect(matchAppRoute('/landing-pages/x')?.route.id).toBe('landing-page-edit');
    // Readable by every member; drafted before any integration (issue 42 item 5).
    for (const p of ['/content', '/content/x', '/landing-pages', '/landing-pages/x']) {
      expect(needsIntegration(matchAppRoute(p)!.route), p).toBe(false);
      expect(matchAppRoute(p)?.route, p).not.toHaveProperty('permission');
    }
  });
});

describe('"Most app routes require the logged-in check and the has-integration check" (SPEC.md §2)', () => {
  it('every app route needs an integration but onboarding, settings, client settings, clients, the public pages, the lists with empty states and the content studio', () => {
    const without = APP_ROUTES.filter((r) => !needsIntegration(r)).map((r) => r.path);
    const allowed = (p: string) =>
      p === '/' ||
      p === '/onboarding' ||
      p === '/clients' ||
      p.startsWith('/settings') ||
      p.startsWith('/client-settings') ||
      p.startsWith('/lp/') ||
      p.startsWith('/content/preview/') ||
      p.startsWith('/legal/') ||
      p.startsWith('/embed/') ||
      // Issue 42 item 5: a new account opens these and sees a real empty state, or drafts an ad.
      ['/revenue', '/reports', '/prospects', '/cadence', '/cohorts'].includes(p) ||
      p.startsWith('/content') ||
      p.startsWith('/landing-pages') ||
      ['/login', '/signup', '/register', '/reset-password', '/change-password', '/auth/callback'].includes(p);
    expect(without.filter((p) => !allowed(p))).toEqual([]);
    // "/feed | Needs login and an integration" (SPEC.md §2), and the screens of one synced record.
    for (const p of ['/feed', '/cadence/:id', '/cohorts/new', '/cohorts/:id', '/campaigns/:id'])
      expect(needsIntegration(APP_ROUTES.find((r) => r.path === p)!), p).toBe(true);
  });

  it('each logged-in route that does without an integration says why', () => {
    for (const r of (APP_ROUTES as readonly AppRoute[]).filter(
      (r) => !r.exempt && !r.guestOnly && !needsIntegration(r),
    )) {
      expect(typeof r.withoutIntegration, r.path).toBe('string');
      expect((r.withoutIntegration ?? '').length, r.path).toBeGreaterThan(20);
    }
    // Public and guest-only routes check neither login nor integrations, so they need no reason.
    for (const r of (APP_ROUTES as readonly AppRoute[]).filter((r) => r.exempt || r.guestOnly))
      expect(r).not.toHaveProperty('withoutIntegration');
  });
});
