import { buildEmailSnippet, snippetHtml, snippetText } from '@rally/shared/utils/email-snippet';
import type { SnippetVariant } from '@rally/shared/utils/email-snippet';
import { AD_FIELD_SOURCES } from '@rally/shared/schemas/ad-delivery';
import type { AdFieldSource, AdFieldsSettings } from '@rally/shared/schemas/ad-delivery';

/**
 * Where the snippet goes in each platform's template editor, in short steps. The editors' buttons
 * change names between releases, so each step names what to look for rather than one label.
 */
export const HOW_TO: Record<AdFieldSource | 'file', string[]> = {
  salesloft: [
    'In Salesloft, open Templates (or the e-mail step of this cadence) and edit the e-mail.',
    'Switch the editor to its HTML (source code) view and paste the snippet where the ad should appear.',
    'Save. If Salesloft does not fill the two fields, remove the two {{…}} tags and insert the same custom fields from the dynamic tags menu.',
  ],
  outreach: [
    'In Outreach, open the template (or the e-mail step of this sequence) and edit it.',
    'Switch the editor to its HTML (source code) view and paste the snippet where the ad should appear.',
    'Save. Outreach fills each custom field per prospect; the click field stays inside the link, as in the snippet.',
  ],
  apolloio: [
    'In Apollo, open the sequence and edit its automatic e-mail step (or the template it uses).',
    'Switch the editor to its HTML view and paste the snippet where the ad should appear.',
    'Save. Apollo holds a contact whose field is empty as "Not sent", so contacts wait until Rally has written their ad. If the fields are not filled, pick them from the dynamic variables menu instead.',
  ],
  hubspot: [
    'In HubSpot, open the template or the sequence e-mail and edit it.',
    'Open the source code (HTML) view of the e-mail body and paste the snippet where the ad should appear.',
    'Save. HubSpot fills the contact properties per recipient.',
  ],
  salesforce: [
    'In Salesforce, edit the e-mail template (Lightning template builder or a Classic HTML template; pick the matching version below).',
    'Paste the snippet into the body in its HTML (source) view.',
    'Save. Salesforce fills the fields of the contact or lead the e-mail goes to.',
  ],
  marketo: [
    'In Marketo, open the e-mail in the email designer.',
    'Select the body text, open its HTML (Edit Code) view and paste the snippet where the ad should appear.',
    'Save and approve the e-mail. Marketo fills the lead fields per recipient.',
  ],
  file: [
    'Download the targets with ad URLs (CSV) below.',
    'Import its ad_image_url and click_url columns into the tool that sends your e-mails, as fields of each recipient.',
    'Paste the snippet into the e-mail’s HTML view and change {{ad_image_url}} and {{click_url}} to that tool’s merge fields for those two columns.',
  ],
};

export const isAdFieldSource = (source: string): source is AdFieldSource =>
  (AD_FIELD_SOURCES as readonly string[]).includes(source);

/** The CSV export's column names as merge fields: for a cadence no platform sends (a file import). */
export function fileSnippet(): ShownSnippet {
  const image = '{{ad_image_url}}';
  const click = '{{click_url}}';
  return {
    verified: true,
    variants: [
      {
        id: 'default',
        editor: 'Any e-mail tool',
        imageToken: image,
        clickToken: click,
        html: snippetHtml(image, click),
        text: snippetText(click),
      },
    ],
  };
}

/** What the step shows: one variant per template editor (Salesforce has two). */
export type ShownSnippet = { variants: SnippetVariant[]; verified: boolean };

/** The snippet for a connection whose two fields are set, else null (the owner picks them first). */
export function platformSnippet(row: AdFieldsSettings | undefined): ShownSnippet | null {
  if (!row?.image_field || !row.click_field) return null;
  return buildEmailSnippet({ source: row.source, imageField: row.image_field, clickField: row.click_field });
}
