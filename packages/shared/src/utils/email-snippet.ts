import { EMAIL_AD_DISPLAY } from '../schemas/content.ts';
import type { AdFieldSource } from '../schemas/ad-delivery.ts';

/**
 * The "Add ads to your e-mails" snippet (issue 38, ARCHITECTURE.md §13): an `<a>` around an `<img>`
 * whose URLs are the platform's own merge fields for the two fields Rally writes on each person
 * (the ad image URL and the click URL, see schemas/ad-delivery.ts), and a plain-text line for
 * plain-text e-mails. The platform fills the fields per recipient when it sends, so each prospect's
 * e-mail carries that prospect's own ad.
 *
 * Merge-field syntax, from each vendor's own documentation:
 * - Salesforce: Lightning email templates use the Handlebars Merge Language, three braces around
 *   `Recipient.Field` (`{{{Recipient.Ad_Image__c}}}`); Classic templates use the Salesforce Merge
 *   Language, `{!Contact.Ad_Image__c}` or `{!Lead.…}` — help.salesforce.com, "Use the Salesforce Merge
 *   Language in Lightning Email Templates" (sales.merge_fields_email_templates_lex) and "…in Classic
 *   Email Templates" (sales.merge_fields_email_templates_cex). API names, custom ones ending `__c`.
 * - HubSpot: personalization tokens are HubL, `{{ contact.<internal property name> }}` —
 *   developers.hubspot.com/docs/cms/reference/hubl/variables ("contact … access specific contact
 *   properties … by adding a period followed by the internal property name"); sales templates use the
 *   same contact tokens (knowledge.hubspot.com, "add personalization tokens to a template or snippet").
 * - Marketo: `{{lead.<field>}}`; Marketo's email designer takes the field's API name (camel case or
 *   underscores, no spaces), the classic editor its display name (`{{lead.Job Title}}`); a token
 *   exists for every custom field — experienceleague.adobe.com, Marketo "Personalization Tokens"
 *   (email designer) and "Tokens Overview".
 * - Outreach: `{{<custom field>}}`, e.g. `{{custom1}}`; a URL field used as a link goes in the link's
 *   URL, not its text — support.outreach.io, "How are Custom Fields formatted in Outreach?".
 * - Salesloft and Apollo: variables are the person's (contact's) field between two braces,
 *   `{{first_name}}`, and custom fields are offered in the same variable menu — Apollo: knowledge.
 *   apollo.io "Use Advanced Dynamic Variables" (a contact with no value for a variable is held as
 *   Not Sent); Salesloft: its dynamic tags as its API validates them (`{{first_name}}`,
 *   `{{My.first_name}}`). Neither documents the spelling of a custom field's variable in what we
 *   could read, so `{{<field name>}}` is the form used and the step tells the user to pick the field
 *   from the platform's own menu when it is not recognised (`verified: false`).
 */

export type SnippetFields = {
  source: AdFieldSource;
  /** The vendor's API name of the field holding the ad image URL (contract: image_field). */
  imageField: string;
  /** The vendor's API name of the field holding the click URL (contract: click_field). */
  clickField: string;
  /** Salesforce: the object the fields are on (`Contact` or `Lead`); Contact when not given. */
  object?: string | null;
};

export type SnippetOptions = {
  /** Shown when images are blocked (Outlook blocks them until the reader allows them). */
  alt?: string;
  /** The label before the link in plain-text e-mails. */
  label?: string;
};

export type SnippetVariant = {
  /** Stable id, e.g. `lightning` / `classic` for Salesforce, `default` elsewhere. */
  id: string;
  /** Which template editor this variant is for, in the vendor's words. */
  editor: string;
  imageToken: string;
  clickToken: string;
  html: string;
  text: string;
};

export type EmailSnippet = {
  source: AdFieldSource;
  /** The first is the one to show by default. */
  variants: SnippetVariant[];
  /** False where the vendor's documentation did not give a custom field's variable spelling. */
  verified: boolean;
};

export const DEFAULT_SNIPPET_ALT = 'A personal note for you. Click to open it.';
export const DEFAULT_SNIPPET_LABEL = 'A personal note for you';

/** The platforms' names, as their users know them. */
export const PLATFORM_NAMES: Record<AdFieldSource, string> = {
  salesloft: 'Salesloft',
  outreach: 'Outreach',
  apolloio: 'Apollo',
  hubspot: 'HubSpot',
  salesforce: 'Salesforce',
  marketo: 'Marketo',
};

/** Attribute-safe text: a field name can only break out of `"…"` with these. */
function attr(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A merge token cannot hold its own closing braces or a line break; such a name is cut there. */
function fieldOf(name: string): string {
  return name
    .trim()
    .replace(/[\r\n]+/g, ' ')
    .replace(/[{}]/g, '');
}

/** The small link under the ad (issue 44): the person's click URL with `/why` after it. */
export const WHY_LINK_TEXT = 'Why am I seeing this?';

/**
 * The HTML snippet for two tokens: a 600 px image (full width on narrow screens) inside a link, and
 * under it a small "Why am I seeing this?" link: the click URL followed by `/why`, which the server
 * answers with the person's own page (where they can stop the ads) without counting a click.
 */
export function snippetHtml(imageToken: string, clickToken: string, alt = DEFAULT_SNIPPET_ALT): string {
  const { width, height } = EMAIL_AD_DISPLAY;
  return (
    `<a href="${attr(clickToken)}" target="_blank" style="display:block;max-width:${width}px;text-decoration:none;border:0;">` +
    `<img src="${attr(imageToken)}" width="${width}" height="${height}" alt="${attr(alt)}" ` +
    `style="display:block;width:100%;max-width:${width}px;height:auto;border:0;outline:none;">` +
    `</a>` +
    `<a href="${attr(clickToken)}/why" target="_blank" style="display:block;max-width:${width}px;margin-top:4px;font-size:11px;line-height:16px;color:#64748b;">${WHY_LINK_TEXT}</a>`
  );
}

/**
 * The plain-text fallback: the click URL on its own line after a short label. One line, so it fits
 * where the platform takes a line (the HTML form carries the "Why am I seeing this?" link).
 */
export function snippetText(clickToken: string, label = DEFAULT_SNIPPET_LABEL): string {
  return `${label}: ${clickToken}`;
}

function variant(
  id: string,
  editor: string,
  imageToken: string,
  clickToken: string,
  opts: SnippetOptions,
): SnippetVariant {
  return {
    id,
    editor,
    imageToken,
    clickToken,
    html: snippetHtml(imageToken, clickToken, opts.alt),
    text: snippetText(clickToken, opts.label),
  };
}

/** The snippet for the platform that sends the cadence's e-mails, in its own merge-field syntax. */
export function buildEmailSnippet(fields: SnippetFields, opts: SnippetOptions = {}): EmailSnippet {
  const image = fieldOf(fields.imageField);
  const click = fieldOf(fields.clickField);
  switch (fields.source) {
    case 'salesforce': {
      const object = fields.object === 'Lead' ? 'Lead' : 'Contact';
      return {
        source: fields.source,
        verified: true,
        variants: [
          variant(
            'lightning',
            'Lightning email template',
            `{{{Recipient.${image}}}}`,
            `{{{Recipient.${click}}}}`,
            opts,
          ),
          variant(
            'classic',
            'Classic email template',
            `{!${object}.${image}}`,
            `{!${object}.${click}}`,
            opts,
          ),
        ],
      };
    }
    case 'hubspot':
      return {
        source: fields.source,
        verified: true,
        variants: [
          variant(
            'default',
            'Template or sequence e-mail',
            `{{ contact.${image} }}`,
            `{{ contact.${click} }}`,
            opts,
          ),
        ],
      };
    case 'marketo':
      return {
        source: fields.source,
        verified: true,
        variants: [variant('default', 'Email designer', `{{lead.${image}}}`, `{{lead.${click}}}`, opts)],
      };
    case 'outreach':
      return {
        source: fields.source,
        verified: true,
        variants: [variant('default', 'Template or sequence step', `{{${image}}}`, `{{${click}}}`, opts)],
      };
    case 'salesloft':
    case 'apolloio':
      return {
        source: fields.source,
        verified: false,
        variants: [variant('default', 'Template or cadence step', `{{${image}}}`, `{{${click}}}`, opts)],
      };
  }
}

/**
 * The snippet as the platform would send it to one person: each token replaced by that person's
 * value (their ad image and click URLs). For the test e-mail and for checking a snippet in a browser.
 */
export function fillSnippet(text: string, values: Record<string, string>, html: boolean): string {
  let out = text;
  for (const [token, value] of Object.entries(values)) {
    const as = html ? attr(token) : token;
    out = out.split(as).join(html ? attr(value) : value);
  }
  return out;
}
