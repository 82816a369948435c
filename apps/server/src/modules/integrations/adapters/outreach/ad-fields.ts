import { AD_FIELD_LABELS, AdFieldsError } from '../../ad-fields-port.ts';
import type { AdFieldsPort, AdFieldWriteResult, AdVendorField } from '../../ad-fields-port.ts';
import type { AdapterContext } from '../../port.ts';
import { VendorError } from '../../vendor-http.ts';
import type { VendorHttp } from '../../vendor-http.ts';

/**
 * Outreach's part of the ad fields (issue 38): two of the prospect's custom fields. Outreach's
 * OpenAPI (test/vendor-specs/outreach) gives every prospect `custom1` … `custom150` (strings of at
 * most 32,000 characters); they cannot be created, only relabelled in Outreach's settings, so the
 * owner picks two unused ones. `PATCH /prospects/{id}` writes one prospect (the bulk modify action
 * sets one value on many, which cannot carry each prospect's own URLs); before a batch the prospects
 * are read 100 at a time (`filter[id]`, only the two fields), so one that already holds its values
 * is not written again. Scopes are not additive: writing needs `prospects.write` beside the read.
 */

const JSON_API = 'application/vnd.api+json';
const BATCH = 100;
const CUSTOM = /^custom([1-9]|[1-9]\d|1[0-4]\d|150)$/;
export const OUTREACH_WRITE_SCOPE = 'prospects.write';

export const OUTREACH_INSTRUCTIONS =
  'Outreach prospects have 150 custom fields that cannot be added to, only renamed. In Outreach, ' +
  'an admin opens Settings › Fields › Prospect, picks two custom fields no one uses (say Custom 149 ' +
  `and Custom 150) and renames them "${AD_FIELD_LABELS.image}" and "${AD_FIELD_LABELS.click}". ` +
  'Then pick the same two here.';

type Doc = { data: { id: number | string; attributes?: Record<string, unknown> }[] };

export function outreachAdFields(http: VendorHttp, apiUrl: string): AdFieldsPort {
  function refused(err: unknown, scope = OUTREACH_WRITE_SCOPE): never {
    if (err instanceof VendorError && err.status === 403 && err.body.includes('unauthorizedOauthScope')) {
      throw new AdFieldsError(
        `Outreach did not let Rally ${scope === OUTREACH_WRITE_SCOPE ? 'update' : 'read'} prospects (the connection lacks the ${scope} permission). ` +
          'Reconnect Outreach in Settings › Connections and approve every permission.',
      );
    }
    throw err;
  }

  async function current(ctx: AdapterContext, ids: string[], fields: string[]) {
    const query = new URLSearchParams({
      'filter[id]': ids.join(','),
      'fields[prospect]': fields.join(','),
      'page[size]': String(BATCH),
    });
    let doc: Doc;
    try {
      doc = await http.request<Doc>(ctx, {
        url: `${apiUrl}/prospects?${query}`,
        headers: { accept: JSON_API, 'content-type': JSON_API },
      });
    } catch (err) {
      refused(err, 'prospects.read');
    }
    return new Map(doc.data.map((r) => [String(r.id), r.attributes ?? {}]));
  }

  return {
    batchSize: BATCH,
    instructions: OUTREACH_INSTRUCTIONS,

    async available(): Promise<AdVendorField[]> {
      // Outreach's API gives the fields, not the labels an admin gave them in the app.
      return Array.from({ length: 150 }, (_, i) => ({
        name: `custom${i + 1}`,
        label: `Custom ${i + 1}`,
        object: null,
      }));
    },

    async check(_ctx, fields) {
      for (const name of [fields.image, fields.click]) {
        if (!CUSTOM.test(name)) {
          throw new AdFieldsError(
            `"${name}" is not an Outreach prospect custom field (custom1 to custom150).`,
          );
        }
      }
    },

    async write(ctx, fields, items): Promise<AdFieldWriteResult[]> {
      const held = await current(
        ctx,
        items.map((i) => i.recordId),
        [fields.image, fields.click],
      );
      const results: AdFieldWriteResult[] = [];
      for (const item of items) {
        const attrs = held.get(item.recordId);
        if (!attrs) {
          results.push({
            recordId: item.recordId,
            ok: false,
            reason: 'The prospect no longer exists in Outreach.',
          });
          continue;
        }
        if (attrs[fields.image] === item.image && attrs[fields.click] === item.click) {
          results.push({ recordId: item.recordId, ok: true });
          continue;
        }
        try {
          await http.request(ctx, {
            method: 'PATCH',
            url: `${apiUrl}/prospects/${encodeURIComponent(item.recordId)}`,
            headers: { accept: JSON_API, 'content-type': JSON_API },
            body: JSON.stringify({
              data: {
                type: 'prospect',
                id: Number(item.recordId),
                attributes: { [fields.image]: item.image, [fields.click]: item.click },
              },
            }),
          });
          results.push({ recordId: item.recordId, ok: true });
        } catch (err) {
          if (err instanceof VendorError && (err.status === 404 || err.status === 422)) {
            results.push({
              recordId: item.recordId,
              ok: false,
              reason:
                err.status === 404
                  ? 'The prospect no longer exists in Outreach.'
                  : `Outreach refused: ${err.body.slice(0, 200)}`,
            });
            continue;
          }
          refused(err);
        }
      }
      return results;
    },
  };
}
