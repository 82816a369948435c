/**
 * The fake Marketo's lead fields and lead writes (fakes/marketo.ts serves the rest), as Marketo's
 * REST documentation describes them (Adobe Experience League, marketo-developer › REST › Lead
 * Database › Leads: "Describe", "Field Management", "Create and Update"; error codes page):
 * - `GET /rest/v1/leads/describe.json`: `result[]{id, displayName, dataType, length, rest{name,
 *   readOnly}}` (the API role's Read-Only Lead permission).
 * - `GET|POST /rest/v1/leads/schema/fields.json`: fields with `name, displayName, dataType,
 *   isCustom, updateable, isHidden`; creating takes `input[]{displayName, name, dataType,
 *   description}` and answers `created` or `skipped` with `reasons[]` per field. Both need the
 *   "Read-Write Schema Custom Field" permission, else 603 Access denied.
 * - `POST /rest/v1/leads.json` `{action, lookupField, input[]}`: at most 300 records (1003 past
 *   that), a field that does not exist refuses the whole request (1006), each record `updated` or,
 *   with `action: updateOnly` and no such lead, `skipped` with reason 1004 "Lead not found";
 *   needs the Read-Write Lead permission (603).
 * Failures are HTTP 200 with `success: false` (MktoError, thrown here, enveloped by the server).
 */

export class MktoError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

export type MktoField = { displayName: string; dataType: string; updateable: boolean };
export type MarketoRole = { readWriteLead: boolean; schemaCustomField: boolean };

/** Marketo's own lead fields the fake has (REST names, with their display names). */
const STANDARD: Record<string, { displayName: string; dataType: string; readOnly?: boolean }> = {
  id: { displayName: 'Id', dataType: 'integer', readOnly: true },
  email: { displayName: 'Email Address', dataType: 'email' },
  firstName: { displayName: 'First Name', dataType: 'string' },
  lastName: { displayName: 'Last Name', dataType: 'string' },
  title: { displayName: 'Job Title', dataType: 'string' },
  company: { displayName: 'Company Name', dataType: 'string' },
  createdAt: { displayName: 'Created At', dataType: 'datetime', readOnly: true },
  updatedAt: { displayName: 'Updated At', dataType: 'datetime', readOnly: true },
};

export type FieldState = {
  fields: Map<string, MktoField>;
  role: MarketoRole;
  /** Custom field values per lead id. */
  values: Map<number, Record<string, string>>;
  leadExists(id: number): boolean;
  touch(id: number): void;
};

const denied = () => new MktoError('603', 'Access denied');

export function describeLeads(fields: Map<string, MktoField>) {
  return [
    ...Object.entries(STANDARD).map(([name, f], i) => ({
      id: i + 1,
      displayName: f.displayName,
      dataType: f.dataType,
      length: f.dataType === 'string' ? 255 : null,
      rest: { name, readOnly: Boolean(f.readOnly) },
    })),
    ...[...fields].map(([name, f], i) => ({
      id: 1000 + i,
      displayName: f.displayName,
      dataType: f.dataType,
      length: 255,
      rest: { name, readOnly: !f.updateable },
    })),
  ];
}

/** A GET of the field routes: the result rows, or null when the path is not one of them. */
export function fieldGet(state: FieldState, path: string): unknown[] | null {
  if (path === '/rest/v1/leads/describe.json') return describeLeads(state.fields);
  if (path === '/rest/v1/leads/schema/fields.json') {
    if (!state.role.schemaCustomField) throw denied();
    return [
      ...Object.entries(STANDARD).map(([name, f]) => ({
        name,
        displayName: f.displayName,
        dataType: f.dataType,
        isCustom: false,
        updateable: !f.readOnly,
        isHidden: false,
      })),
      ...[...state.fields].map(([name, f]) => ({
        name,
        displayName: f.displayName,
        dataType: f.dataType,
        isCustom: true,
        updateable: f.updateable,
        isHidden: false,
      })),
    ];
  }
  return null;
}

/** A JSON POST of the field or lead routes: the result rows, or null when the path is not one. */
export function fieldPost(state: FieldState, path: string, raw: string): unknown[] | null {
  let body: Record<string, unknown>;
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    throw new MktoError('609', 'Invalid JSON');
  }
  if (path === '/rest/v1/leads/schema/fields.json') {
    if (!state.role.schemaCustomField) throw denied();
    const input = (body.input ?? []) as { displayName?: string; name?: string; dataType?: string }[];
    return input.map((f) => {
      if (!f.displayName || !f.name || !f.dataType) {
        return {
          name: f.name,
          status: 'skipped',
          reasons: [{ code: '1003', message: 'displayName, name and dataType are required' }],
        };
      }
      if (state.fields.has(f.name) || STANDARD[f.name]) {
        return {
          name: f.name,
          status: 'skipped',
          reasons: [{ code: '1009', message: 'Field already exists' }],
        };
      }
      state.fields.set(f.name, { displayName: f.displayName, dataType: f.dataType, updateable: true });
      return { name: f.name, status: 'created' };
    });
  }
  if (path === '/rest/v1/leads.json') {
    if (!state.role.readWriteLead) throw denied();
    const input = (body.input ?? []) as Record<string, unknown>[];
    if (input.length > 300) throw new MktoError('1003', 'Input exceeds the 300 records allowed');
    const lookup = String(body.lookupField ?? 'email');
    const action = String(body.action ?? 'createOrUpdate');
    if (lookup !== 'id' || action !== 'updateOnly') {
      throw new MktoError('1003', 'The fake takes action updateOnly with lookupField id');
    }
    for (const rec of input) {
      for (const k of Object.keys(rec)) {
        const known = k === 'id' || (STANDARD[k] && !STANDARD[k].readOnly) || state.fields.get(k)?.updateable;
        if (!known) throw new MktoError('1006', `Field '${k}' not found`);
      }
    }
    return input.map((rec) => {
      const id = Number(rec.id);
      if (!state.leadExists(id)) {
        return { status: 'skipped', reasons: [{ code: '1004', message: 'Lead not found' }] };
      }
      const custom = state.values.get(id) ?? {};
      for (const [k, v] of Object.entries(rec)) if (state.fields.has(k)) custom[k] = String(v);
      state.values.set(id, custom);
      state.touch(id);
      return { id, status: 'updated' };
    });
  }
  return null;
}
