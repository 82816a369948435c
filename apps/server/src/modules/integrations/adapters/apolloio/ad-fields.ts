import { AD_FIELD_LABELS, AdFieldsError } from '../../ad-fields-port.ts';
import type { AdFieldNames, AdFieldsPort, AdFieldWriteResult, AdVendorField } from '../../ad-fields-port.ts';
import type { AdapterContext } from '../../port.ts';
import { VendorError } from '../../vendor-http.ts';
import type { VendorHttp } from '../../vendor-http.ts';

/**
 * Apollo's part of the ad fields (issue 38): two contact custom fields. From Apollo's OpenAPI
 * (test/vendor-specs/apollo): `GET /fields?source=custom` lists them (ids `contact.{id}`), `POST
 * /fields` creates one (`label`, `modality: contact`, `type`), and `POST /contacts/bulk_update`
 * writes up to 100 contacts synchronously (`contact_attributes[]{id, typed_custom_fields}`, the
 * field's id as key). Each endpoint must be on the API key, or the key a master key.
 */

const BATCH = 100;
/** Room for the URLs (Apollo's default text length is not documented). */
const MAX_LENGTH = 1000;
const TEXT_TYPES = new Set(['string', 'textarea', 'text', 'url']);

export const APOLLO_INSTRUCTIONS =
  'In Apollo, an admin opens Settings › Objects and fields › Contacts › Create field and adds two text ' +
  `fields, "${AD_FIELD_LABELS.image}" and "${AD_FIELD_LABELS.click}". Then pick them here.`;

type Field = { id: string; label: string; modality?: string; type?: string; source?: string };
type UpdateError = {
  error?: string;
  error_details?: { contact_id?: string | null; field?: string; message?: string };
};

export function apolloAdFields(http: VendorHttp, base: string): AdFieldsPort {
  /** A 403 API_INACCESSIBLE: the key lacks this endpoint (and is not a master key). */
  function refused(err: unknown, endpoint: string): never {
    if (err instanceof VendorError && err.status === 403 && err.body.includes('API_INACCESSIBLE')) {
      throw new AdFieldsError(
        `Apollo did not let this API key use ${endpoint}. Enter a master API key (or one with that ` +
          'endpoint) in Settings › Connections.',
      );
    }
    throw err;
  }

  async function contactFields(ctx: AdapterContext): Promise<Field[]> {
    try {
      const reply = await http.request<{ fields: Field[] }>(ctx, { url: `${base}/fields?source=custom` });
      return reply.fields.filter((f) => f.modality === 'contact' && TEXT_TYPES.has(f.type ?? ''));
    } catch (err) {
      refused(err, 'api/v1/fields/index');
    }
  }
  /** `contact.66e3…` → `66e3…`: the key typed_custom_fields takes. */
  const idOf = (f: Field) => f.id.replace(/^contact\./, '');

  return {
    batchSize: BATCH,
    instructions: APOLLO_INSTRUCTIONS,

    async available(ctx): Promise<AdVendorField[]> {
      return (await contactFields(ctx))
        .map((f) => ({ name: idOf(f), label: f.label, object: null }))
        .sort((a, b) => a.label.localeCompare(b.label));
    },

    async create(ctx): Promise<AdFieldNames> {
      const existing = new Map((await contactFields(ctx)).map((f) => [f.label, idOf(f)]));
      const made: Record<'image' | 'click', string> = { image: '', click: '' };
      for (const key of ['image', 'click'] as const) {
        const label = AD_FIELD_LABELS[key];
        const found = existing.get(label);
        if (found) {
          made[key] = found;
          continue;
        }
        try {
          const reply = await http.request<{ typed_custom_fields: { id: string }[] }>(ctx, {
            method: 'POST',
            url: `${base}/fields`,
            body: { label, modality: 'contact', type: 'string', meta: { max_length: MAX_LENGTH } },
          });
          const id = reply.typed_custom_fields[0]?.id;
          if (!id) throw new AdFieldsError('Apollo did not say which field it created.');
          made[key] = id;
        } catch (err) {
          refused(err, 'api/v1/fields/create');
        }
      }
      return made;
    },

    async check(ctx, fields) {
      const ids = new Set((await contactFields(ctx)).map(idOf));
      for (const id of [fields.image, fields.click]) {
        if (!ids.has(id)) {
          throw new AdFieldsError(
            'One of the Apollo contact fields chosen no longer exists. Pick the fields again, or let Rally create them.',
          );
        }
      }
    },

    async write(ctx, fields, items): Promise<AdFieldWriteResult[]> {
      const results: AdFieldWriteResult[] = [];
      let left = items;
      // A contact Apollo refuses fails the whole request ("Validation failed" names it): it is set
      // aside and the rest sent again, at most once per contact of the batch.
      for (let tries = 0; left.length && tries <= items.length; tries++) {
        try {
          const reply = await http.request<{ contacts?: { id: string }[] }>(ctx, {
            method: 'POST',
            url: `${base}/contacts/bulk_update`,
            body: {
              contact_attributes: left.map((i) => ({
                id: i.recordId,
                typed_custom_fields: { [fields.image]: i.image, [fields.click]: i.click },
              })),
            },
          });
          const updated = new Set((reply.contacts ?? []).map((c) => c.id));
          for (const i of left) {
            results.push(
              updated.has(i.recordId)
                ? { recordId: i.recordId, ok: true }
                : { recordId: i.recordId, ok: false, reason: 'Apollo did not update this contact.' },
            );
          }
          return results;
        } catch (err) {
          if (err instanceof VendorError && err.status === 422) {
            let detail: UpdateError = {};
            try {
              detail = JSON.parse(err.body) as UpdateError;
            } catch {
              // not JSON: below
            }
            const id = detail.error_details?.contact_id;
            const field = detail.error_details?.field ?? '';
            if (field.startsWith('typed_custom_fields.')) {
              throw new AdFieldsError(
                'An Apollo contact field chosen no longer exists. Pick the fields again, or let Rally create them.',
              );
            }
            if (id && left.some((i) => i.recordId === id)) {
              const message = detail.error_details?.message ?? detail.error ?? 'refused';
              results.push({
                recordId: id,
                ok: false,
                reason: /not found/i.test(message)
                  ? 'The contact no longer exists in Apollo.'
                  : `Apollo refused: ${message}`,
              });
              left = left.filter((i) => i.recordId !== id);
              continue;
            }
          }
          refused(err, 'api/v1/contacts/bulk_update');
        }
      }
      return results;
    },
  };
}
