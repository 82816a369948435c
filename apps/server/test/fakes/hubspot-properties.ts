import { randomUUID } from 'node:crypto';

/**
 * The fake HubSpot's contact property definitions and contact batch update (fakes/hubspot.ts serves
 * the rest). As HubSpot documents them in its OpenAPI (github.com/HubSpot/HubSpot-public-api-spec-
 * collection @ 99893791383254f52aa07662baeb98aad65cc710, PublicApiSpecs/CRM/Properties/Rollouts/
 * 145899/v3/properties.json and CRM/Contacts/Rollouts/424/v3/contacts.json; the excerpt Rally's
 * requests are checked against is test/vendor-specs/hubspot-2026-12-05.json):
 * - `POST /crm/v3/properties/{objectType}` requires `name, label, type, fieldType, groupName`
 *   (PropertyCreate) and scope crm.schemas.contacts.write; the group must exist; a name taken is 409.
 * - `GET|POST /crm/v3/properties/{objectType}/groups` (PropertyGroupCreate: `name, label`).
 * - `POST /crm/v3/objects/contacts/batch/update`: `inputs[]{id, properties}` (HubSpot's batch limit
 *   is 100 inputs, developers.hubspot.com/docs/api/crm/contacts), scope crm.objects.contacts.write;
 *   200 `{status: COMPLETE, results}`, or 207 with `errors[]` (StandardError: `category,
 *   context.ids`) for ids it cannot find; a property that does not exist refuses the whole batch
 *   with 400 VALIDATION_ERROR, `errors[].code` PROPERTY_DOESNT_EXIST.
 * Errors are HubSpot's `{status: "error", message, correlationId, category, errors?, context?}`.
 */

export class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}
export const hsError = (
  status: number,
  category: string,
  message: string,
  extra: Record<string, unknown> = {},
) => new HttpError(status, { status: 'error', message, correlationId: randomUUID(), category, ...extra });

export type HsPropertyDef = { label: string; type: string; fieldType: string; groupName: string };

/** What the property routes need of the fake's state. */
export type PropertyState = {
  customProperties: Map<string, HsPropertyDef>;
  groups: Map<string, { label: string; displayOrder: number }>;
  /** Every property name that contact records carry (HubSpot's own). */
  standardNames(type: string): Set<string>;
  contactExists(id: string): boolean;
  setContact(
    id: string,
    properties: Record<string, string>,
  ): { id: string; properties: Record<string, string | null>; createdAt: string; updatedAt: string };
  hasScope(scope: string): boolean;
  onBatchUpdate(): void;
};

const missingScope = (scope: string) =>
  hsError(403, 'MISSING_SCOPES', 'This app hasn\u2019t been granted all required scopes to make this call.', {
    errors: [
      { message: `One or more of the following scopes are required.`, context: { requiredScopes: [scope] } },
    ],
    context: { requiredScopes: [scope] },
  });

function json<T>(raw: string): T {
  try {
    return JSON.parse(raw || '{}') as T;
  } catch {
    throw hsError(400, 'VALIDATION_ERROR', 'Invalid input JSON');
  }
}

/** Answers a property or batch-update call, or null when the path is not one of them. */
export function propertyRoute(
  state: PropertyState,
  method: string,
  rest: string[],
  area: string,
  body: () => Promise<string>,
): Promise<{ status: number; body: unknown } | null> | null {
  if (area === 'properties' && rest.length === 2 && rest[1] === 'groups') {
    return (async () => {
      if (method === 'GET') {
        return {
          status: 200,
          body: {
            results: [...state.groups].map(([name, g]) => ({
              name,
              label: g.label,
              displayOrder: g.displayOrder,
              archived: false,
            })),
          },
        };
      }
      if (method !== 'POST') return null;
      if (!state.hasScope('crm.schemas.contacts.write')) throw missingScope('crm.schemas.contacts.write');
      const b = json<{ name?: string; label?: string; displayOrder?: number }>(await body());
      if (!b.name || !b.label) throw hsError(400, 'VALIDATION_ERROR', 'name and label are required');
      if (state.groups.has(b.name)) {
        throw hsError(409, 'CONFLICT', `A property group named '${b.name}' already exists.`);
      }
      state.groups.set(b.name, { label: b.label, displayOrder: b.displayOrder ?? -1 });
      return {
        status: 201,
        body: { name: b.name, label: b.label, displayOrder: b.displayOrder ?? -1, archived: false },
      };
    })();
  }
  if (area === 'properties' && rest.length === 1 && method === 'POST') {
    return (async () => {
      if (!state.hasScope('crm.schemas.contacts.write')) throw missingScope('crm.schemas.contacts.write');
      const b = json<Partial<HsPropertyDef> & { name?: string }>(await body());
      const missing = (['name', 'label', 'type', 'fieldType', 'groupName'] as const).filter((k) => !b[k]);
      if (missing.length)
        throw hsError(400, 'VALIDATION_ERROR', `Missing required fields: ${missing.join(', ')}`);
      if (!/^[a-z][a-z0-9_]*$/.test(b.name!))
        throw hsError(400, 'VALIDATION_ERROR', 'name must be lower case');
      if (!state.groups.has(b.groupName!)) {
        throw hsError(400, 'VALIDATION_ERROR', `Property group ${b.groupName} does not exist`);
      }
      if (state.customProperties.has(b.name!) || state.standardNames(rest[0]!).has(b.name!)) {
        throw hsError(409, 'CONFLICT', `A property named '${b.name}' already exists.`);
      }
      const def = { label: b.label!, type: b.type!, fieldType: b.fieldType!, groupName: b.groupName! };
      state.customProperties.set(b.name!, def);
      return { status: 201, body: { name: b.name, ...def, hubspotDefined: false } };
    })();
  }
  if (area === 'objects' && rest.join('/') === 'contacts/batch/update' && method === 'POST') {
    return (async () => {
      if (!state.hasScope('crm.objects.contacts.write')) throw missingScope('crm.objects.contacts.write');
      const b = json<{ inputs?: { id: string; properties: Record<string, string> }[] }>(await body());
      const inputs = b.inputs ?? [];
      if (inputs.length > 100) throw hsError(400, 'VALIDATION_ERROR', 'Batch size limited to 100 inputs');
      const known = state.standardNames('contacts');
      const unknown = [...new Set(inputs.flatMap((i) => Object.keys(i.properties ?? {})))].filter(
        (k) => !known.has(k) && !state.customProperties.has(k),
      );
      if (unknown.length) {
        throw hsError(400, 'VALIDATION_ERROR', 'Property values were not valid', {
          errors: unknown.map((k) => ({
            message: `Property "${k}" does not exist`,
            code: 'PROPERTY_DOESNT_EXIST',
            context: { propertyName: [k] },
          })),
        });
      }
      state.onBatchUpdate();
      const missingIds = inputs.filter((i) => !state.contactExists(i.id)).map((i) => i.id);
      const results = inputs
        .filter((i) => state.contactExists(i.id))
        .map((i) => state.setContact(i.id, i.properties));
      const at = new Date().toISOString();
      const reply = { status: 'COMPLETE', results, startedAt: at, completedAt: at };
      if (!missingIds.length) return { status: 200, body: reply };
      return {
        status: 207,
        body: {
          ...reply,
          numErrors: 1,
          errors: [
            {
              status: 'error',
              category: 'OBJECT_NOT_FOUND',
              message: 'Could not get some CONTACT objects, they may be deleted or not exist.',
              context: { ids: missingIds },
              errors: [],
              links: {},
            },
          ],
        },
      };
    })();
  }
  return null;
}
