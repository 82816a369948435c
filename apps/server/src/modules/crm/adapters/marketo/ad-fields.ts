import { AD_FIELD_LABELS, AdFieldsError } from '../../../integrations/ad-fields-port.ts';
import type {
  AdFieldNames,
  AdFieldsPort,
  AdFieldWriteResult,
  AdVendorField,
} from '../../../integrations/ad-fields-port.ts';
import type { AdapterContext } from '../../../integrations/port.ts';
import { VendorError } from '../../../integrations/vendor-http.ts';

/**
 * Marketo's part of the ad fields (issue 38): two lead fields, which Marketo e-mails use as tokens
 * ({{lead.Rally ad image URL}}). From Marketo's REST documentation (Adobe Experience League,
 * marketo-developer › REST › Lead Database › Leads, "Field Management" and "Create/Update Leads"):
 * `GET /rest/v1/leads/schema/fields.json` lists the fields with `isCustom` and `updateable` and
 * `POST` there creates them (`input[]{displayName, name, dataType, description}`; both need the API
 * role's "Read-Write Schema Custom Field" permission, else error 603 Access denied; without it the
 * fields come from `GET /rest/v1/leads/describe.json`, `rest.name` and `rest.readOnly`). Leads are
 * written with `POST /rest/v1/leads.json` `{action: updateOnly, lookupField: id, input[]}`, up to
 * 300 a request; each result is `updated` or `skipped` with `reasons[]` (1004 lead not found).
 * Failures are HTTP 200 with `success: false`: 606 (100 calls per 20 s) and 615 (10 at once) are
 * waited out by the adapter, 607 (daily quota) ends the run until the next one, 1006 names a field
 * that does not exist.
 */

const BATCH = 300;
const TEXT_TYPES = new Set(['string', 'url', 'text']);
export const MARKETO_AD_FIELDS = { image: 'rallyAdImageURL', click: 'rallyAdClickURL' } as const;

export const MARKETO_INSTRUCTIONS =
  'In Marketo, an admin opens Admin › Field Management › New Custom Field and creates two fields of type ' +
  `URL: "${AD_FIELD_LABELS.image}" (API name ${MARKETO_AD_FIELDS.image}) and "${AD_FIELD_LABELS.click}" ` +
  `(API name ${MARKETO_AD_FIELDS.click}). To let Rally create them instead, give Rally's API role the ` +
  '"Read-Write Schema Custom Field" permission (Admin › Users & Roles › Roles). Then pick them here.';

type Envelope<T> = {
  success: boolean;
  result?: T[];
  errors?: { code: string; message: string }[];
  moreResult?: boolean;
  nextPageToken?: string;
};
type SchemaField = {
  name: string;
  displayName: string;
  dataType: string;
  isCustom?: boolean;
  updateable?: boolean;
  isHidden?: boolean;
};
type Described = { displayName: string; dataType: string; rest?: { name: string; readOnly?: boolean } };
type WriteResult = { id?: number; status: string; reasons?: { code: string; message: string }[] };

export type MarketoCall = <T>(
  ctx: AdapterContext,
  path: string,
  q?: Record<string, string>,
  body?: unknown,
) => Promise<Envelope<T>>;

/** The error code of a refusal `call` raised (`error 603: Access denied`). */
const codeOf = (err: unknown) =>
  err instanceof VendorError ? (/error (\d+):/.exec(err.message)?.[1] ?? null) : null;

export function marketoAdFields(call: MarketoCall): AdFieldsPort {
  /** The lead fields that can hold a URL: custom ones when the role may read the schema. */
  async function textFields(ctx: AdapterContext): Promise<AdVendorField[]> {
    try {
      const out: AdVendorField[] = [];
      let next: string | undefined;
      do {
        const page: Envelope<SchemaField> = await call<SchemaField>(ctx, '/v1/leads/schema/fields.json', {
          batchSize: '300',
          ...(next ? { nextPageToken: next } : {}),
        });
        for (const f of page.result ?? []) {
          if (f.isCustom && f.updateable !== false && !f.isHidden && TEXT_TYPES.has(f.dataType)) {
            out.push({ name: f.name, label: f.displayName, object: null });
          }
        }
        next = page.moreResult ? page.nextPageToken : undefined;
      } while (next);
      return out;
    } catch (err) {
      if (codeOf(err) !== '603') throw err;
    }
    // No schema permission: every writable text field the REST API describes.
    const described = await call<Described>(ctx, '/v1/leads/describe.json');
    return (described.result ?? []).flatMap((f) =>
      f.rest && !f.rest.readOnly && TEXT_TYPES.has(f.dataType)
        ? [{ name: f.rest.name, label: f.displayName, object: null }]
        : [],
    );
  }

  const sorted = (fields: AdVendorField[]) => [...fields].sort((a, b) => a.label.localeCompare(b.label));

  return {
    batchSize: BATCH,
    instructions: MARKETO_INSTRUCTIONS,

    available: async (ctx) => sorted(await textFields(ctx)),

    async create(ctx): Promise<AdFieldNames> {
      let existing: Set<string>;
      try {
        existing = new Set(
          (await call<SchemaField>(ctx, '/v1/leads/schema/fields.json', { batchSize: '300' })).result?.map(
            (f) => f.name,
          ),
        );
      } catch (err) {
        if (codeOf(err) === '603') {
          throw new AdFieldsError(
            'Marketo did not let Rally create lead fields: the API role lacks the "Read-Write Schema Custom Field" permission.',
          );
        }
        throw err;
      }
      const input = (['image', 'click'] as const)
        .filter((k) => !existing.has(MARKETO_AD_FIELDS[k]))
        .map((k) => ({
          displayName: AD_FIELD_LABELS[k],
          name: MARKETO_AD_FIELDS[k],
          dataType: 'url',
          description: 'Written by Rally: the URL of this lead’s ad, for e-mail tokens.',
        }));
      if (input.length) {
        const made = await call<{ name: string; status: string; reasons?: { message: string }[] }>(
          ctx,
          '/v1/leads/schema/fields.json',
          {},
          { input },
        );
        const refused = (made.result ?? []).find((r) => r.status === 'skipped');
        if (refused) {
          throw new AdFieldsError(
            `Marketo did not create the field ${refused.name}: ${refused.reasons?.[0]?.message ?? 'skipped'}.`,
          );
        }
      }
      return { ...MARKETO_AD_FIELDS };
    },

    async check(ctx, fields) {
      const names = new Set((await textFields(ctx)).map((f) => f.name));
      for (const name of [fields.image, fields.click]) {
        if (!names.has(name)) {
          throw new AdFieldsError(
            `The Marketo lead field ${name} no longer exists or cannot be written. Pick the fields again, or let Rally create them.`,
          );
        }
      }
    },

    async write(ctx, fields, items): Promise<AdFieldWriteResult[]> {
      let reply: Envelope<WriteResult>;
      try {
        reply = await call<WriteResult>(
          ctx,
          '/v1/leads.json',
          {},
          {
            action: 'updateOnly',
            lookupField: 'id',
            input: items.map((i) => ({
              id: Number(i.recordId),
              [fields.image]: i.image,
              [fields.click]: i.click,
            })),
          },
        );
      } catch (err) {
        const code = codeOf(err);
        if (code === '1006') {
          throw new AdFieldsError(
            'A Marketo lead field chosen for the ads no longer exists. Pick the fields again, or let Rally create them.',
          );
        }
        if (code === '603') {
          throw new AdFieldsError(
            'Marketo did not let Rally update leads: give the API role the "Read-Write Lead" permission (Admin › Users & Roles › Roles).',
          );
        }
        throw err;
      }
      // One result per input, in order.
      return items.map((i, n): AdFieldWriteResult => {
        const r = reply.result?.[n];
        if (r?.status === 'updated') return { recordId: i.recordId, ok: true };
        const reason = r?.reasons?.[0];
        return {
          recordId: i.recordId,
          ok: false,
          reason:
            reason?.code === '1004'
              ? 'The lead no longer exists in Marketo.'
              : `Marketo skipped this lead: ${reason?.message ?? 'no reason given'}`,
        };
      });
    },
  };
}
