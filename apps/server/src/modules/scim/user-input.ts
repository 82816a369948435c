import { emailSchema } from '@rally/shared/schemas/auth';
import { badRequest } from './errors.ts';
import { valuePath } from './filter.ts';

/**
 * The attributes of a User (RFC 7643 §4.1) that Rally keeps, read from a POST or PUT body or changed
 * by PATCH operations (RFC 7644 §3.5.2). Attributes Rally does not keep (phone numbers, titles, the
 * enterprise extension) are accepted and ignored, as identity providers send them unasked.
 */
export type UserState = {
  userName: string;
  externalId: string | null;
  givenName: string;
  familyName: string;
  active: boolean;
};

const USER_URN = /^urn:ietf:params:scim:schemas:core:2\.0:user:/i;

function str(name: string, v: unknown, max: number): string {
  if (typeof v !== 'string') throw badRequest('invalidValue', `${name} must be a string`);
  if (v.length > max) throw badRequest('invalidValue', `${name} must be at most ${max} characters`);
  if (v.includes('\u0000')) throw badRequest('invalidValue', `${name} must not contain NUL characters`);
  return v.trim();
}

/** Entra ID sends booleans as the strings "True" and "False" in PATCH values. */
function bool(name: string, v: unknown): boolean {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  throw badRequest('invalidValue', `${name} must be true or false`);
}

/** userName is the member's e-mail address (Rally signs people in by address). */
export function userNameOf(v: unknown): string {
  if (v === undefined || v === null || v === '') throw badRequest('invalidValue', 'userName is required');
  const parsed = emailSchema.safeParse(str('userName', v, 254));
  if (!parsed.success) {
    throw badRequest('invalidValue', `userName must be the member's e-mail address; ${String(v)} is not one`);
  }
  return parsed.data;
}

const externalIdOf = (v: unknown) =>
  v === null || v === undefined ? null : str('externalId', v, 200) || null;

function nameOf(v: unknown): { givenName?: string; familyName?: string } {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest('invalidValue', 'name must be an object');
  const n = v as Record<string, unknown>;
  return {
    ...(n.givenName !== undefined ? { givenName: str('name.givenName', n.givenName ?? '', 100) } : {}),
    ...(n.familyName !== undefined ? { familyName: str('name.familyName', n.familyName ?? '', 100) } : {}),
  };
}

/** A POST or PUT body (RFC 7644 §3.3, §3.5.1): what it leaves out is cleared (active defaults to true). */
export function userFromBody(body: unknown): UserState {
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('invalidSyntax', 'the body must be a JSON object (a SCIM User)');
  }
  const b = body as Record<string, unknown>;
  const name = nameOf(b.name);
  return {
    userName: userNameOf(b.userName),
    externalId: externalIdOf(b.externalId),
    givenName: name.givenName ?? '',
    familyName: name.familyName ?? '',
    active: b.active === undefined ? true : bool('active', b.active),
  };
}

export type PatchOp = { op: 'add' | 'replace' | 'remove'; path: string | null; value: unknown };

/** The operations of a PatchOp body (RFC 7644 §3.5.2); `op` is case-insensitive (Entra sends "Replace"). */
export function patchOpsOf(body: unknown): PatchOp[] {
  const b = (body ?? {}) as Record<string, unknown>;
  const schemas = b.schemas;
  if (!Array.isArray(schemas) || !schemas.includes('urn:ietf:params:scim:api:messages:2.0:PatchOp')) {
    throw badRequest('invalidSyntax', 'schemas must name urn:ietf:params:scim:api:messages:2.0:PatchOp');
  }
  const ops = b.Operations;
  if (!Array.isArray(ops) || ops.length === 0) {
    throw badRequest('invalidSyntax', 'Operations must be a list of at least one operation');
  }
  return ops.map((raw, i) => {
    const o = (raw ?? {}) as Record<string, unknown>;
    const op = typeof o.op === 'string' ? o.op.toLowerCase() : '';
    if (op !== 'add' && op !== 'replace' && op !== 'remove') {
      throw badRequest('invalidSyntax', `Operations[${i}].op must be add, replace or remove`);
    }
    if (o.path !== undefined && typeof o.path !== 'string') {
      throw badRequest('invalidPath', `Operations[${i}].path must be a string`);
    }
    const path = typeof o.path === 'string' && o.path.trim() ? o.path.trim() : null;
    // §3.5.2.2: a remove without a path has no target.
    if (op === 'remove' && !path) throw badRequest('noTarget', `Operations[${i}]: remove needs a path`);
    if (op !== 'remove' && o.value === undefined) {
      throw badRequest('invalidValue', `Operations[${i}]: ${op} needs a value`);
    }
    return { op, path, value: o.value };
  });
}

function setAttribute(state: UserState, op: 'add' | 'replace', path: string, value: unknown): void {
  const attr = path.replace(USER_URN, '').toLowerCase();
  switch (attr) {
    case 'active':
      state.active = bool('active', value);
      return;
    case 'username': {
      const next = userNameOf(value);
      if (next !== state.userName.toLowerCase()) {
        throw badRequest(
          'mutability',
          'userName (the member’s e-mail address) cannot be changed by provisioning',
        );
      }
      return;
    }
    case 'externalid':
      state.externalId = externalIdOf(value);
      return;
    case 'name': {
      const n = nameOf(value);
      // replace swaps the whole complex value; add merges into it (§3.5.2.1, §3.5.2.3).
      state.givenName = n.givenName ?? (op === 'replace' ? '' : state.givenName);
      state.familyName = n.familyName ?? (op === 'replace' ? '' : state.familyName);
      return;
    }
    case 'name.givenname':
      state.givenName = str('name.givenName', value ?? '', 100);
      return;
    case 'name.familyname':
      state.familyName = str('name.familyName', value ?? '', 100);
      return;
    default:
      // Not kept by Rally (displayName, emails, title, the enterprise extension…): ignored.
      if (valuePath(path) === null && !/^[\w.:$-]+$/.test(path)) {
        throw badRequest('invalidPath', `cannot read the path ${path}`);
      }
  }
}

function removeAttribute(state: UserState, path: string): void {
  const attr = path.replace(USER_URN, '').toLowerCase();
  if (attr === 'username' || attr === 'active') {
    throw badRequest('mutability', `${path} is required and cannot be removed`);
  }
  if (attr === 'externalid') state.externalId = null;
  if (attr === 'name' || attr === 'name.givenname') state.givenName = '';
  if (attr === 'name' || attr === 'name.familyname') state.familyName = '';
}

/** Applies PATCH operations to a copy of the state (all or nothing: the caller stores the result). */
export function patchUser(current: UserState, ops: PatchOp[]): UserState {
  const next = { ...current };
  for (const o of ops) {
    if (o.op === 'remove') {
      if (o.path) removeAttribute(next, o.path);
    } else if (o.path) setAttribute(next, o.op, o.path, o.value);
    else {
      // No path: the value is an object of attributes to add or replace (§3.5.2.1, §3.5.2.3).
      if (!o.value || typeof o.value !== 'object' || Array.isArray(o.value)) {
        throw badRequest('invalidValue', `${o.op} without a path needs an object of attributes as its value`);
      }
      for (const [k, v] of Object.entries(o.value)) setAttribute(next, o.op, k, v);
    }
  }
  return next;
}
