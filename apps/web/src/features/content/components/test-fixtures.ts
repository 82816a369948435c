import { notifications } from '@mantine/notifications';
import { vi } from 'vitest';
import type { LandingPage } from '@rally/shared/schemas/content';
import { resetAuth } from '../../../lib/auth/store.ts';
import { CLIENT_IDS } from '../../../testing/fixtures.ts';

/** What the content screens' tests share: the client, a landing page, and a session in it. */

export const ACME = CLIENT_IDS.acme;
export const PAGE_ID = '0b6f2f5e-8d4c-4f55-9a7e-2f1d3c4b5a70';

export const landingPage: LandingPage = {
  id: PAGE_ID,
  client_id: ACME,
  name: 'Growth audit',
  landing_page_payload: { content_html: '', footer_html: '', hero_html: '<h1>Hi</h1>', hero_img: '' },
  sdr_img_url: '',
  logo_url: '',
  favicon_url: '',
  colors: { background: '#ffffff', text: '#000000', accent: '#000000' },
  assignee: null,
  is_archived: false,
  public_path: '/lp/3mJr7AoUXx2Wqd',
  created_at: '2026-11-01T09:00:00.000Z',
  updated_at: '2026-11-01T09:00:00.000Z',
};

export { acmeSession } from '../../../testing/fixtures.ts';
export type { Role, Routes } from '../../../testing/fixtures.ts';

/** After each test: no toasts left, signed out, the real fetch back. */
export function cleanUpSession() {
  notifications.clean();
  resetAuth();
  vi.unstubAllGlobals();
}
