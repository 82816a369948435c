import { AD_FIELD_LABELS, AdFieldsError } from '../../../integrations/ad-fields-port.ts';
import type {
  AdFieldNames,
  AdFieldsPort,
  AdFieldWrite,
  AdFieldWriteResult,
  AdVendorField,
} from '../../../integrations/ad-fields-port.ts';
import type { AdapterContext } from '../../../integrations/port.ts';
import { VendorError } from '../../../integrations/vendor-http.ts';
import type { VendorHttp } from '../../../integrations/vendor-http.ts';

/**
 * HubSpot's part of the ad fields (issue 38): two contact properties, which HubSpot sequences and
 * marketing e-mails use as personalization tokens. From HubSpot's own OpenAPI (test/vendor-specs/
 * hubspot): `GET /crm/v3/properties/contacts` lists the properties, `POST …/properties/contacts`
 * creates one (`name, label, type, fieldType, groupName` required; scope crm.schemas.contacts.write)
 * in a group made with `POST …/properties/contacts/groups`, and `POST /crm/v3/objects/contacts/batch/
 * update` sets up to 100 contacts (scope crm.objects.contacts.write), answering 200, or 207 with
 * `errors[]` naming the ids it could not update. Errors are `{category, message, context}`; a missing
 * scope is 403 MISSING_SCOPES. 429s are waited out by the adapter's vendor-http (TEN_SECONDLY_ROLLING).
 */

const BATCH = 100;
const GROUP = { name: 'rally', label: 'Rally', displayOrder: -1 };
export const HUBSPOT_AD_PROPERTIES = { image: 'rally_ad_image_url', click: 'rally_ad_click_url' } as const;
/** Field types that hold a line of text (a URL); HubSpot's own and calculated properties are left out. */
const TEXT_FIELD_TYPES = new Set(['text', 'textarea']);

export const HUBSPOT_INSTRUCTIONS =
  'In HubSpot, a super admin opens Settings › Data Management › Properties, picks "Contact properties" ' +
  `and creates two properties of field type "Single-line text": "${AD_FIELD_LABELS.image}" and ` +
  `"${AD_FIELD_LABELS.click}" (any group). Then pick them here.`;

type Property = {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  hubspotDefined?: boolean;
  calculated?: boolean;
  modificationMetadata?: { readOnlyValue?: boolean };
};
type HsError = {
  category?: string;
  message?: string;
  context?: Record<string, string[] | undefined>;
  errors?: { message?: string; code?: string; context?: Record<string, string[] | undefined> }[];
};
type BatchReply = { status?: string; results?: { id: string }[]; errors?: HsError[] };

function parsed(err: VendorError): HsError {
  try {
    return JSON.parse(err.body) as HsError;
  } catch {
    return {};
  }
}

/** A 403 MISSING_SCOPES: the connection was made before Rally asked for this scope. */
function refused(err: unknown, scope: string, what: string): never {
  if (err instanceof VendorError && err.status === 403) {
    throw new AdFieldsError(
      `HubSpot did not let Rally ${what}: the connection lacks the ${scope} scope. A super admin of the ` +
        'HubSpot account reconnects HubSpot in Settings › Connections and approves every permission.',
    );
  }
  throw err;
}

const writable = (p: Property) =>
  p.type === 'string' &&
  TEXT_FIELD_TYPES.has(p.fieldType) &&
  !p.hubspotDefined &&
  !p.calculated &&
  !p.modificationMetadata?.readOnlyValue;

export function hubspotAdFields(http: VendorHttp, api: string): AdFieldsPort {
  const properties = async (ctx: AdapterContext): Promise<Property[]> =>
    (await http.request<{ results: Property[] }>(ctx, { url: `${api}/crm/v3/properties/contacts` })).results;

  async function ensureGroup(ctx: AdapterContext): Promise<void> {
    const groups = (
      await http.request<{ results: { name: string }[] }>(ctx, {
        url: `${api}/crm/v3/properties/contacts/groups`,
      })
    ).results;
    if (groups.some((g) => g.name === GROUP.name)) return;
    try {
      await http.request(ctx, {
        method: 'POST',
        url: `${api}/crm/v3/properties/contacts/groups`,
        body: GROUP,
      });
    } catch (err) {
      // Made meanwhile by another request: what was wanted.
      if (err instanceof VendorError && err.status === 409) return;
      refused(err, 'crm.schemas.contacts.write', 'create a contact property group');
    }
  }

  /** One batch request; ids HubSpot says it could not find are answered apart. */
  async function update(
    ctx: AdapterContext,
    fields: AdFieldNames,
    items: AdFieldWrite[],
  ): Promise<{ reply: BatchReply } | { missing: string[] }> {
    try {
      const reply = await http.request<BatchReply>(ctx, {
        method: 'POST',
        url: `${api}/crm/v3/objects/contacts/batch/update`,
        body: {
          inputs: items.map((i) => ({
            id: i.recordId,
            properties: { [fields.image]: i.image, [fields.click]: i.click },
          })),
        },
      });
      return { reply };
    } catch (err) {
      if (!(err instanceof VendorError)) throw err;
      const e = parsed(err);
      if (err.status === 403) refused(err, 'crm.objects.contacts.write', 'update contacts');
      const text = JSON.stringify(e);
      if (err.status === 400 && /PROPERTY_DOESNT_EXIST|does not exist/i.test(text) && !e.context?.ids) {
        throw new AdFieldsError(
          'A HubSpot contact property chosen for the ads no longer exists. Pick the properties again, or let Rally create them.',
        );
      }
      // A whole batch refused for ids it does not know (archived or merged contacts).
      const ids = e.context?.ids ?? [];
      if (e.category === 'OBJECT_NOT_FOUND' && ids.length) return { missing: ids.map(String) };
      throw err;
    }
  }

  return {
    batchSize: BATCH,
    instructions: HUBSPOT_INSTRUCTIONS,

    async available(ctx): Promise<AdVendorField[]> {
      return (await properties(ctx))
        .filter(writable)
        .map((p) => ({ name: p.name, label: p.label, object: null }))
        .sort((a, b) => a.label.localeCompare(b.label));
    },

    async create(ctx): Promise<AdFieldNames> {
      const existing = new Map((await properties(ctx)).map((p) => [p.name, p]));
      for (const key of ['image', 'click'] as const) {
        const name = HUBSPOT_AD_PROPERTIES[key];
        const found = existing.get(name);
        if (found) {
          if (!writable(found)) {
            throw new AdFieldsError(
              `HubSpot already has a contact property "${name}" that cannot hold a URL. Create two single-line text properties and pick them here.`,
            );
          }
          continue;
        }
        await ensureGroup(ctx);
        try {
          await http.request(ctx, {
            method: 'POST',
            url: `${api}/crm/v3/properties/contacts`,
            body: {
              name,
              label: AD_FIELD_LABELS[key],
              type: 'string',
              fieldType: 'text',
              groupName: GROUP.name,
              description: 'Written by Rally: the URL of this contact’s ad, for the e-mail template.',
            },
          });
        } catch (err) {
          if (err instanceof VendorError && err.status === 409) continue;
          refused(err, 'crm.schemas.contacts.write', 'create contact properties');
        }
      }
      return { ...HUBSPOT_AD_PROPERTIES };
    },

    async check(ctx, fields) {
      const byName = new Map((await properties(ctx)).map((p) => [p.name, p]));
      for (const name of [fields.image, fields.click]) {
        const p = byName.get(name);
        if (!p || !writable(p)) {
          throw new AdFieldsError(
            `The HubSpot contact property "${name}" no longer exists or cannot hold a URL. Pick the properties again, or let Rally create them.`,
          );
        }
      }
    },

    async write(ctx, fields, items): Promise<AdFieldWriteResult[]> {
      const results: AdFieldWriteResult[] = [];
      const gone = (recordId: string): AdFieldWriteResult => ({
        recordId,
        ok: false,
        reason: 'The contact no longer exists in HubSpot (deleted or merged).',
      });
      let left = items;
      // Each refusal of the whole batch names contacts to set aside: at most one more try each.
      for (let tries = 0; left.length && tries <= items.length; tries++) {
        const answer = await update(ctx, fields, left);
        if ('missing' in answer) {
          const missing = new Set(answer.missing);
          results.push(...left.filter((i) => missing.has(i.recordId)).map((i) => gone(i.recordId)));
          const rest = left.filter((i) => !missing.has(i.recordId));
          if (rest.length === left.length) throw new AdFieldsError('HubSpot refused a batch of contacts.');
          left = rest;
          continue;
        }
        const updated = new Set((answer.reply.results ?? []).map((r) => String(r.id)));
        const notFound = new Set(
          (answer.reply.errors ?? [])
            .filter((e) => e.category === 'OBJECT_NOT_FOUND')
            .flatMap((e) => e.context?.ids ?? []),
        );
        for (const i of left) {
          if (updated.has(i.recordId)) results.push({ recordId: i.recordId, ok: true });
          else if (notFound.has(i.recordId)) results.push(gone(i.recordId));
          else
            results.push({ recordId: i.recordId, ok: false, reason: 'HubSpot did not update this contact.' });
        }
        return results;
      }
      return results;
    },
  };
}
