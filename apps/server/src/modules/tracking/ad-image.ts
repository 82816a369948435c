import type { AdSize } from '@rally/shared/schemas/content';
import { neutralAd } from './neutral-png.ts';
import type { TargetState } from './repository.ts';
import type { TrackingService } from './service.ts';

/**
 * The PNG of the target's content at this size, personalised with its sales rep. Until the ad
 * renderer (modules/creative) is wired in, the neutral image stands in.
 */
export async function adImage(tracking: TrackingService, target: TargetState, size: AdSize): Promise<Buffer> {
  if (!target.content) return neutralAd(size);
  const row = await tracking.contentRow(target.content);
  if (!row) return neutralAd(size);
  return neutralAd(size);
}
