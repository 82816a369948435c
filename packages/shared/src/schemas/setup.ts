import { z } from 'zod';

/**
 * `GET /v1/rest/client/{id}/setup` (issue 42 item 5): the setup checklist ("3 of 6 done"), each step
 * naming what it blocks while it is not done and the screen that does it. Computed on every call.
 */
export const SETUP_STEPS = [
  /** A sequence platform connected or prospects imported: without prospects nobody sees an ad. */
  'source',
  /** An ad made and published: a cadence with ads on has nothing to show without one. */
  'ad',
  /** Ads switched on for a cadence: until then no prospect sees an ad. */
  'ads_on',
  /** A payment card on file: ads stop at the first invoice without one. */
  'card',
  /** A CRM connected (or revenue imported): Revenue has no opportunities to tie ads to. */
  'crm',
  /** Every sales rep whose prospects see ads has a photo: ads show initials instead. */
  'photo',
] as const;
export type SetupStepKey = (typeof SETUP_STEPS)[number];

export const setupStepSchema = z.object({
  key: z.enum(SETUP_STEPS),
  done: z.boolean(),
  /** What to do, as the checklist names it ("Connect a CRM"). */
  title: z.string(),
  /** While not done: what it blocks, in the user's words. Once done: what is there. */
  detail: z.string(),
  /** The screen that does it: an app path (the web adds client_id) and the words of its link. */
  link: z.object({ path: z.string(), label: z.string() }),
  /** The signed-in role cannot do it (e.g. the card without billing access): say whom to ask. */
  ask_owner: z.boolean(),
});
export type SetupStep = z.infer<typeof setupStepSchema>;

export const setupChecklistSchema = z.object({
  steps: z.array(setupStepSchema),
  done: z.number().int(),
  total: z.number().int(),
});
export type SetupChecklist = z.infer<typeof setupChecklistSchema>;
