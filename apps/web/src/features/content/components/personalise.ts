import { fillTagsText } from '@rally/shared';
import { ASSIGNEE_FIELDS } from '@rally/shared/schemas/content';
import type { Assignee } from '@rally/shared/schemas/content';

/** The prospect the editors' previews are personalised for (the server's live preview uses the same). */
export const SAMPLE_PROSPECT_VALUES = {
  prospect_first_name: 'Alex',
  prospect_last_name: 'Morgan',
  prospect_title: 'VP Operations',
  prospect_company_name: 'Example Co',
};

/** data-id values of a preview: the assignee's fields and the sample prospect. */
export function previewValues(assignee: Assignee | null): Record<string, string> {
  const values: Record<string, string> = { ...SAMPLE_PROSPECT_VALUES };
  for (const f of ASSIGNEE_FIELDS) if (assignee?.[f]?.trim()) values[f] = assignee[f].trim();
  return values;
}

/** A plain text with its data-id tags filled in (a tag without a value shows its fallback). */
export function personaliseText(text: string, values: Record<string, string>): string {
  return fillTagsText(text, values);
}
