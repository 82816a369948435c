import type { FastifyInstance } from 'fastify';
import type { AdRendition } from '@rally/shared/schemas/content';
import { adImageFor, creativeOf } from '../creative/index.ts';
import { neutralAd } from './neutral-png.ts';
import type { TargetState } from './repository.ts';

/** A content text that names prospect fields (data-id="prospect_…" tags) needs the prospect. */
const PROSPECT_TAG = /prospect_/;
const NO_PROSPECT = { firstName: '', lastName: '', companyName: null };

/**
 * The PNG of the target's content at this size, personalised with its sales rep (and its prospect
 * when the text has prospect tags), from the ad renderer's shared cache. The neutral image when
 * the content is gone.
 */
export async function adImage(app: FastifyInstance, target: TargetState, size: AdRendition): Promise<Buffer> {
  if (!target.content) return neutralAd(size);
  const memo = served.get(target);
  const key = memo?.[size];
  const known = key === undefined ? undefined : creativeOf(app).renderer.cached(key);
  if (known) return known;
  const row = await app.tracking.contentRow(target.content);
  if (!row) return neutralAd(size);
  const texts = `${row.title} ${row.imageText} ${row.landingPagePayload?.landing_button_name ?? ''}`;
  // Most ads speak for the rep only: the prospect is left out, so the image is shared by all of the
  // rep's prospects in the cache.
  const prospect = PROSPECT_TAG.test(texts) ? target.prospect : NO_PROSPECT;
  const ad = await adImageFor(app, { content: row, size, target: { rep: target.rep, prospect } });
  if (!ad) return neutralAd(size);
  served.set(target, { ...memo, [size]: ad.key });
  return ad.png;
}

/**
 * The renderer's cache keys of the images already served for a target state read by the tracking
 * service's cache (issue 19: the key is a hash of every input of the ad, a tenth of an impression's
 * CPU to recompute; issue 43: ads that name the prospect, which read it and made their key on every
 * impression, made the realistic mix cost 1.6–1.7 times the uniform case). A state object lives
 * only as long as the cached state it came from, which is retired when its client's state version
 * moves (content, rep, settings, and the prospect's fields and company name since migration 0065),
 * so the image cannot outlive what it shows. Keys, not images: the renderer's memory stays the one
 * bound on PNG bytes.
 */
const served = new WeakMap<TargetState, Partial<Record<AdRendition, string>>>();
