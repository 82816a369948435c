import { EMAIL_RENDITION } from '@rally/shared/schemas/content';
import type { AdRendition } from '@rally/shared/schemas/content';

/**
 * The one place that builds the URLs Rally writes into a vendor's person fields (issue 38,
 * ARCHITECTURE.md §13): a target's ad image (`/t/{token}/ad/{size}.png`) and click tag (`/t/{token}/c`)
 * under the public URL. The e-mail rendition's size is named here once; a change to it (or to the
 * public URL) changes every written value, so the write-back writes them all again.
 */
export const EMAIL_AD_SIZE: AdRendition = EMAIL_RENDITION;

/**
 * A target's ad image and click URLs for e-mails: the e-mail rendition (decision 0020). The same
 * URLs are in the cadence's test e-mail and in the bulk export of a cadence's or cohort's targets.
 */
export function adUrls(publicUrl: string, token: string): { image: string; click: string } {
  const base = `${publicUrl.replace(/\/+$/, '')}/t/${encodeURIComponent(token)}`;
  return { image: `${base}/ad/${EMAIL_AD_SIZE}.png`, click: `${base}/c` };
}

/** The path segment of the neutral pair: not a token (tokens are 24 URL-safe characters). */
export const NEUTRAL_SEGMENT = 'neutral';

/**
 * The neutral pair written when a person has left every cadence of the platform (decision 0019): a
 * transparent image of the e-mail size and a plain page, with no token, so nothing is counted and
 * nothing points at a target any more.
 */
export function neutralAdUrls(publicUrl: string): { image: string; click: string } {
  const base = `${publicUrl.replace(/\/+$/, '')}/t/${NEUTRAL_SEGMENT}`;
  return { image: `${base}/${EMAIL_AD_SIZE}.png`, click: `${base}/c` };
}
