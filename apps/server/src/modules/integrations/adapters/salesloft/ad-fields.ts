import { AD_FIELD_LABELS, AdFieldsError } from '../../ad-fields-port.ts';
import type { AdFieldNames, AdFieldsPort, AdFieldWriteResult, AdVendorField } from '../../ad-fields-port.ts';
import type { AdapterContext } from '../../port.ts';
import { VendorError } from '../../vendor-http.ts';
import type { VendorHttp } from '../../vendor-http.ts';

/**
 * Salesloft's part of the ad fields (issue 38): two person custom fields. Salesloft's API definition
 * (test/vendor-specs/salesloft) has `GET`/`POST /v2/custom_fields` (`field_type` person, company or
 * opportunity) and `PUT /v2/people/{id}` with a `custom_fields` object keyed by field name; it has no
 * bulk update of people, so each person is one request (600 cost a minute per team, API-NOTES §1).
 * Before writing a batch the people are read 100 at a time (`ids[]`): a person who already holds the
 * values is not written again, and the person's other custom fields are sent back unchanged, since
 * the definition does not say whether `custom_fields` replaces or merges.
 */

const PER_PAGE = 100;
export const SALESLOFT_WRITE_SCOPE = 'people:write';

type CustomField = { id: number | string; name: string; field_type?: string; value_type?: string | null };
type Person = { id: number | string; custom_fields?: Record<string, unknown> | null };
type Paging = { next_page?: number | null };

export const SALESLOFT_INSTRUCTIONS =
  'In Salesloft, an admin opens Settings › Custom Fields › People and adds two text fields, ' +
  `"${AD_FIELD_LABELS.image}" and "${AD_FIELD_LABELS.click}". Then pick them here.`;

export function salesloftAdFields(http: VendorHttp, api: string): AdFieldsPort {
  const url = (path: string, query?: URLSearchParams) => `${api}${path}${query?.size ? `?${query}` : ''}`;

  /** Salesloft's 403 on a write: the token lacks people:write (connected before Rally asked for it). */
  function refused(err: unknown, what: string): never {
    if (err instanceof VendorError && (err.status === 403 || err.status === 401)) {
      throw new AdFieldsError(
        `Salesloft did not let Rally ${what} (the connection lacks the ${SALESLOFT_WRITE_SCOPE} permission). ` +
          'Reconnect Salesloft in Settings › Connections and approve every permission.',
      );
    }
    throw err;
  }

  async function personFields(ctx: AdapterContext): Promise<CustomField[]> {
    const out: CustomField[] = [];
    for (let page = 1; ;) {
      const query = new URLSearchParams({
        field_type: 'person',
        per_page: String(PER_PAGE),
        page: String(page),
      });
      const reply = await http.request<{ data: CustomField[]; metadata?: { paging?: Paging } }>(ctx, {
        url: url('/custom_fields', query),
      });
      out.push(...reply.data);
      const next = reply.metadata?.paging?.next_page;
      if (!next || next <= page || !reply.data.length) return out;
      page = next;
    }
  }

  // Text fields only: a date field cannot hold a URL.
  const textFields = (list: CustomField[]) =>
    list.filter((f) => (f.field_type ?? 'person') === 'person' && (f.value_type ?? 'text') === 'text');

  return {
    batchSize: PER_PAGE,
    instructions: SALESLOFT_INSTRUCTIONS,

    async available(ctx): Promise<AdVendorField[]> {
      return textFields(await personFields(ctx))
        .map((f) => ({ name: f.name, label: f.name, object: null }))
        .sort((a, b) => a.label.localeCompare(b.label));
    },

    async create(ctx): Promise<AdFieldNames> {
      const existing = new Set(textFields(await personFields(ctx)).map((f) => f.name));
      for (const name of [AD_FIELD_LABELS.image, AD_FIELD_LABELS.click]) {
        if (existing.has(name)) continue;
        try {
          await http.request(ctx, {
            method: 'POST',
            url: url('/custom_fields'),
            body: { name, field_type: 'person' },
          });
        } catch (err) {
          refused(err, 'create custom fields (only a Salesloft admin may)');
        }
      }
      return { image: AD_FIELD_LABELS.image, click: AD_FIELD_LABELS.click };
    },

    async check(ctx, fields) {
      const names = new Set(textFields(await personFields(ctx)).map((f) => f.name));
      for (const name of [fields.image, fields.click]) {
        if (!names.has(name)) {
          throw new AdFieldsError(
            `The Salesloft person field "${name}" no longer exists. Pick the fields again, or let Rally create them.`,
          );
        }
      }
    },

    async write(ctx, fields, items): Promise<AdFieldWriteResult[]> {
      const query = new URLSearchParams({ per_page: String(PER_PAGE) });
      for (const item of items) query.append('ids[]', item.recordId);
      const people = new Map(
        (await http.request<{ data: Person[] }>(ctx, { url: url('/people', query) })).data.map((p) => [
          String(p.id),
          p,
        ]),
      );
      const results: AdFieldWriteResult[] = [];
      for (const item of items) {
        const person = people.get(item.recordId);
        if (!person) {
          results.push({
            recordId: item.recordId,
            ok: false,
            reason: 'The person no longer exists in Salesloft.',
          });
          continue;
        }
        const current = person.custom_fields ?? {};
        if (current[fields.image] === item.image && current[fields.click] === item.click) {
          results.push({ recordId: item.recordId, ok: true });
          continue;
        }
        try {
          await http.request(ctx, {
            method: 'PUT',
            url: url(`/people/${encodeURIComponent(item.recordId)}`),
            body: { custom_fields: { ...current, [fields.image]: item.image, [fields.click]: item.click } },
          });
          results.push({ recordId: item.recordId, ok: true });
        } catch (err) {
          if (err instanceof VendorError && (err.status === 404 || err.status === 422)) {
            results.push({
              recordId: item.recordId,
              ok: false,
              reason:
                err.status === 404
                  ? 'The person no longer exists in Salesloft.'
                  : `Salesloft refused: ${err.body.slice(0, 200)}`,
            });
            continue;
          }
          refused(err, 'update people');
        }
      }
      return results;
    },
  };
}
