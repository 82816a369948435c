import { AD_FIELD_LABELS, AdFieldsError } from '../../../integrations/ad-fields-port.ts';
import type {
  AdFieldsPort,
  AdFieldWriteResult,
  AdVendorField,
} from '../../../integrations/ad-fields-port.ts';
import type { AdapterContext } from '../../../integrations/port.ts';
import { VendorError } from '../../../integrations/vendor-http.ts';

/**
 * Salesforce's part of the ad fields (issue 38): two custom fields on Contact (and Lead, with the
 * same API names), which Salesforce e-mail templates merge as {!Contact.Rally_Ad_Image_URL__c}.
 * The REST API cannot create fields (that is the Metadata or Tooling API, and a field made there
 * is visible to no profile until field-level security is granted), so the owner creates them in
 * Setup (SALESFORCE_INSTRUCTIONS). Fields offered are the custom text and URL fields the connected
 * user may edit (`describe`: `custom`, `updateable`). Writes use sObject Collections (REST API
 * Developer Guide, "Update Records Using sObject Collections"): `PATCH /composite/sobjects`
 * `{allOrNone: false, records[{attributes{type}, id, …fields}]}`, up to 200 records, answered 200
 * with one SaveResult `{id, success, errors[{statusCode, message, fields}]}` per record in order; a
 * request that is not well formed (a field unknown or hidden) is 400 with the error array. Calls go
 * through the adapter's `call`, which paces by the org's daily allocation (api-budget.ts): 85 % used
 * or 403 REQUEST_LIMIT_EXCEEDED "TotalRequests" ends the run; "ConcurrentRequests" is waited out.
 */

const BATCH = 200;
const TEXT_TYPES = new Set(['string', 'url', 'textarea']);
/** Key prefixes of the records Rally writes: 003 Contact, 00Q Lead. */
const TYPE_OF_PREFIX: Record<string, string> = { '003': 'Contact', '00Q': 'Lead' };

export const SALESFORCE_AD_FIELDS = {
  image: 'Rally_Ad_Image_URL__c',
  click: 'Rally_Ad_Click_URL__c',
} as const;

export const SALESFORCE_INSTRUCTIONS =
  'In Salesforce Setup › Object Manager › Contact › Fields & Relationships, click New, choose the data type ' +
  `URL, and create "${AD_FIELD_LABELS.image}" with Field Name Rally_Ad_Image_URL (API name ` +
  `${SALESFORCE_AD_FIELDS.image}); at "Establish field-level security" make it Visible (not Read-Only) for ` +
  "the connected user's profile. Do the same for " +
  `"${AD_FIELD_LABELS.click}" (Field Name Rally_Ad_Click_URL). Create both on Lead as well, with the same Field Names. ` +
  'Then pick them here.';

type Describe = {
  fields: { name: string; label: string; type: string; custom?: boolean; updateable?: boolean }[];
};
type SaveResult = { id?: string; success: boolean; errors?: { statusCode?: string; message?: string }[] };
type SfError = { errorCode?: string; message?: string }[];

const GONE = new Set([
  'ENTITY_IS_DELETED',
  'INVALID_CROSS_REFERENCE_KEY',
  'NOT_FOUND',
  'MALFORMED_ID',
  'INVALID_ID_FIELD',
]);

type Deps = {
  call: <T>(
    ctx: AdapterContext,
    req: { method?: 'GET' | 'PATCH'; url: string; body?: unknown },
  ) => Promise<T>;
  base: (ctx: AdapterContext) => string;
};

export function salesforceAdFields(deps: Deps): AdFieldsPort {
  const describe = async (ctx: AdapterContext, object: 'Contact' | 'Lead') =>
    (await deps.call<Describe>(ctx, { url: `${deps.base(ctx)}/sobjects/${object}/describe` })).fields;
  const urlFields = (fields: Describe['fields']) =>
    fields.filter((f) => f.custom && f.updateable && TEXT_TYPES.has(f.type));

  return {
    batchSize: BATCH,
    instructions: SALESFORCE_INSTRUCTIONS,

    async available(ctx): Promise<AdVendorField[]> {
      return urlFields(await describe(ctx, 'Contact'))
        .map((f) => ({ name: f.name, label: f.label, object: 'Contact' }))
        .sort((a, b) => a.label.localeCompare(b.label));
    },

    async check(ctx, fields) {
      const editable = new Set(urlFields(await describe(ctx, 'Contact')).map((f) => f.name));
      for (const name of [fields.image, fields.click]) {
        if (!editable.has(name)) {
          throw new AdFieldsError(
            `The Salesforce Contact field ${name} no longer exists, or the connected user may not edit it. ` +
              "In Setup › Object Manager › Contact › Fields & Relationships, check the field and its field-level security (Visible, not Read-Only, for the connected user's profile), or pick other fields.",
          );
        }
      }
    },

    async write(ctx, fields, items): Promise<AdFieldWriteResult[]> {
      let replies: SaveResult[];
      try {
        replies = await deps.call<SaveResult[]>(ctx, {
          method: 'PATCH',
          url: `${deps.base(ctx)}/composite/sobjects`,
          body: {
            allOrNone: false,
            records: items.map((i) => ({
              attributes: { type: TYPE_OF_PREFIX[i.recordId.slice(0, 3)] ?? 'Contact' },
              id: i.recordId,
              [fields.image]: i.image,
              [fields.click]: i.click,
            })),
          },
        });
      } catch (err) {
        if (err instanceof VendorError && err.status === 400) {
          let codes: SfError = [];
          try {
            codes = JSON.parse(err.body) as SfError;
          } catch {
            // not Salesforce's error array: below
          }
          const first = Array.isArray(codes) ? codes[0] : undefined;
          if (
            first?.errorCode === 'INVALID_FIELD' ||
            first?.errorCode === 'INVALID_FIELD_FOR_INSERT_UPDATE'
          ) {
            throw new AdFieldsError(
              `Salesforce refused the ad fields: ${first.message ?? first.errorCode}. Check that both fields exist on Contact and Lead and that the connected user may edit them (field-level security).`,
            );
          }
        }
        throw err;
      }
      return items.map((i, n): AdFieldWriteResult => {
        const r = replies[n];
        if (r?.success) return { recordId: i.recordId, ok: true };
        const e = r?.errors?.[0];
        if (e?.statusCode && GONE.has(e.statusCode)) {
          return { recordId: i.recordId, ok: false, reason: 'The record no longer exists in Salesforce.' };
        }
        return {
          recordId: i.recordId,
          ok: false,
          reason: `Salesforce refused: ${e?.message ?? e?.statusCode ?? 'no reason given'}`.slice(0, 300),
        };
      });
    },
  };
}
