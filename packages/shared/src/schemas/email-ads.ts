// Ads in a cadence's own e-mails (issue 38, ARCHITECTURE.md §13): the "Add ads to your e-mails" step
// of a cadence, its test e-mail, and the bulk export of targets with their ad and click URLs.
import { z } from 'zod';
import { serialIdSchema } from './common.ts';

const iso = z.iso.datetime({ offset: true });

/** `…/cadence/{id}/…`: the client in the path and a cadence of it. */
export const clientCadenceParams = z.object({
  clientId: z.uuid('must be the id (UUID) of a client'),
  id: serialIdSchema('a cadence id'),
});

/** `…/cohort/{id}/…`. */
export const clientCohortExportParams = z.object({
  clientId: z.uuid('must be the id (UUID) of a client'),
  id: z.uuid('must be the id (UUID) of a cohort'),
});

/** The newest test e-mail the user sent for the cadence, and what became of it. */
export const snippetTestSchema = z.object({
  sent_at: iso,
  sent_to: z.string(),
  /** Whose ad the test shows (a prospect of the cadence). */
  prospect_name: z.string(),
  /** When its image was first shown (the test was opened with images on). */
  opened_at: iso.nullable(),
  clicked_at: iso.nullable(),
});
export type SnippetTest = z.infer<typeof snippetTestSchema>;

/** `GET /v1/rest/client/{clientId}/cadence/{id}/email_snippet`. */
export const emailSnippetStatusSchema = z.object({
  cadence_id: z.number().int(),
  cadence_name: z.string(),
  /** Ads are switched on and the cadence is active: otherwise its e-mails show a blank image. */
  ads_on: z.boolean(),
  /** Targets (prospects) of the cadence; a test e-mail shows one of their ads. */
  targets: z.number().int(),
  /**
   * The first impression of the e-mail rendition for this cadence (decision 0020): the snippet is
   * installed and a prospect's mail client showed it. Null until then. Test e-mails never set it.
   */
  installed_at: iso.nullable(),
  /** The in-app preview of the e-mail ad of the cadence's first day with content, if any. */
  preview_path: z.string().nullable(),
  last_test: snippetTestSchema.nullable(),
});
export type EmailSnippetStatus = z.infer<typeof emailSnippetStatusSchema>;

/** `POST …/email_snippet/test`: the alt text and label the user will paste, so the test matches. */
export const emailSnippetTestBody = z
  .object({
    alt: z.string().trim().min(1, 'must not be empty').max(200, 'must be at most 200 characters').optional(),
    label: z
      .string()
      .trim()
      .min(1, 'must not be empty')
      .max(100, 'must be at most 100 characters')
      .optional(),
  })
  .strict();
export type EmailSnippetTestBody = z.infer<typeof emailSnippetTestBody>;

/** Test e-mails a user may send in an hour (all cadences together). */
export const SNIPPET_TESTS_PER_HOUR = 5;
