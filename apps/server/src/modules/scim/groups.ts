import { and, eq } from 'drizzle-orm';
import { SCIM_GROUP_NAMES, SCIM_ROLES } from '@rally/shared/schemas/scim';
import type { ScimRole } from '@rally/shared/schemas/scim';
import { scimUsers } from '../../db/schema/index.ts';
import { badRequest, notFound } from './errors.ts';
import { parseFilter, valuePath } from './filter.ts';
import { auditScim } from './audit.ts';
import { setMembershipRole } from './membership.ts';
import type { PatchOp } from './user-input.ts';
import { LIST_SCHEMA, roleOf } from './users.ts';
import type { ScimDeps, ScimUserRow, ScimUserService } from './users.ts';
import type { ScimCaller } from './tokens.ts';

export const GROUP_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:Group';
const OWNER = 'purple_owner';

const isScimRole = (id: string): id is ScimRole => (SCIM_ROLES as readonly string[]).includes(id);

/**
 * Groups (RFC 7643 §4.2) are the client's roles, one each, fixed: their id is the role
 * (`blue_admin`…), their displayName its name. Adding a member to a group gives them that role;
 * removing them gives back the token's default role. Owners are made in Rally only, so the owner
 * role is no group and an owner's role is not changed here (docs/decisions/0029).
 */
export function createGroupService(deps: ScimDeps, usersService: ScimUserService) {
  const { db, baseUrl } = deps;

  function resource(role: ScimRole, rows: ScimUserRow[], withMembers = true) {
    return {
      schemas: [GROUP_SCHEMA],
      id: role,
      displayName: SCIM_GROUP_NAMES[role],
      ...(withMembers
        ? {
            members: rows
              .filter((r) => roleOf(r) === role)
              .map((r) => ({ value: r.userId, display: r.userName, $ref: `${baseUrl}/Users/${r.userId}` })),
          }
        : {}),
      meta: { resourceType: 'Group', location: `${baseUrl}/Groups/${role}` },
    };
  }

  function roleIdOf(id: string): ScimRole {
    if (!isScimRole(id))
      throw notFound('There is no such group: groups are the roles admin, manager, SDR and viewer.');
    return id;
  }

  /** Gives a provisioned member a role (their membership too while active); one transaction per call. */
  async function setRole(caller: ScimCaller, userId: unknown, role: string): Promise<void> {
    const row = typeof userId === 'string' ? await usersService.rowOf(caller, userId) : null;
    if (!row)
      throw badRequest('invalidValue', `members: ${String(userId)} is not a provisioned user of this client`);
    const current = roleOf(row);
    if (current === role) return;
    if (current === OWNER) {
      throw badRequest('mutability', `${row.userName} is an owner; owners' roles are changed in Rally only`);
    }
    await db.transaction(async (tx) => {
      await tx
        .update(scimUsers)
        .set({ role, updatedAt: new Date() })
        .where(and(eq(scimUsers.clientId, caller.clientId), eq(scimUsers.userId, row.userId)));
      await setMembershipRole(tx, caller.clientId, row.userId, role);
      await auditScim(tx, caller, 'member.role_changed', row.userId, {
        user_name: row.userName,
        from: current,
        to: role,
      });
    });
    await deps.forgetUser(row.userId);
  }

  const membersOf = (value: unknown): unknown[] => {
    const list = Array.isArray(value) ? value : [value];
    return list.map((m) => (m && typeof m === 'object' ? (m as { value?: unknown }).value : undefined));
  };

  async function replaceMembers(caller: ScimCaller, role: ScimRole, wanted: unknown[]) {
    const keep = new Set(wanted.map(String));
    for (const id of wanted) await setRole(caller, id, role);
    for (const r of await usersService.rows(caller)) {
      if (roleOf(r) === role && !keep.has(r.userId)) await setRole(caller, r.userId, caller.defaultRole);
    }
  }

  function sameName(role: ScimRole, value: unknown) {
    if (value !== undefined && value !== SCIM_GROUP_NAMES[role]) {
      throw badRequest('mutability', "a group's displayName is its role's name and cannot be changed");
    }
  }

  return {
    async list(caller: ScimCaller, filter: string | undefined, excludeMembers: boolean) {
      let roles: ScimRole[] = [...SCIM_ROLES];
      for (const c of filter ? parseFilter(filter, ['displayname', 'id']) : []) {
        roles = roles.filter((r) =>
          c.attribute === 'id'
            ? r === c.value
            : typeof c.value === 'string' && SCIM_GROUP_NAMES[r].toLowerCase() === c.value.toLowerCase(),
        );
      }
      const rows = excludeMembers ? [] : await usersService.rows(caller);
      return {
        schemas: [LIST_SCHEMA],
        totalResults: roles.length,
        itemsPerPage: roles.length,
        startIndex: 1,
        Resources: roles.map((r) => resource(r, rows, !excludeMembers)),
      };
    },

    async get(caller: ScimCaller, id: string, excludeMembers: boolean) {
      const role = roleIdOf(id);
      return resource(role, excludeMembers ? [] : await usersService.rows(caller), !excludeMembers);
    },

    /** PATCH /Groups/{id} (RFC 7644 §3.5.2): members added, removed or replaced. */
    async patch(caller: ScimCaller, id: string, ops: PatchOp[]) {
      const role = roleIdOf(id);
      for (const o of ops) {
        const path = o.path?.toLowerCase() ?? null;
        const filtered = o.path ? valuePath(o.path) : null;
        if (o.op === 'remove') {
          if (filtered?.attribute === 'members') {
            // members[value eq "…"] (§3.5.2.2)
            for (const c of filtered.filter) {
              if (c.attribute !== 'value') throw badRequest('invalidFilter', 'members are picked by value');
              const row = typeof c.value === 'string' ? await usersService.rowOf(caller, c.value) : null;
              if (row && roleOf(row) === role) await setRole(caller, row.userId, caller.defaultRole);
            }
          } else if (path === 'members') {
            // With a value (Entra): those members; without: all of them (§3.5.2.2).
            const ids = o.value === undefined ? null : new Set(membersOf(o.value).map(String));
            for (const r of await usersService.rows(caller)) {
              if (roleOf(r) === role && (!ids || ids.has(r.userId)))
                await setRole(caller, r.userId, caller.defaultRole);
            }
          } else throw badRequest('invalidPath', `${o.path} cannot be removed from a group; only members`);
          continue;
        }
        if (path === 'members') {
          if (o.op === 'add') for (const m of membersOf(o.value)) await setRole(caller, m, role);
          else await replaceMembers(caller, role, membersOf(o.value));
        } else if (path === 'displayname') {
          sameName(role, o.value);
        } else if (path === null && o.value && typeof o.value === 'object' && !Array.isArray(o.value)) {
          const v = o.value as Record<string, unknown>;
          sameName(role, v.displayName);
          if (v.members !== undefined) {
            if (o.op === 'add') for (const m of membersOf(v.members)) await setRole(caller, m, role);
            else await replaceMembers(caller, role, membersOf(v.members));
          }
        } else {
          throw badRequest(
            'invalidPath',
            `${o.path ?? '(no path)'} cannot be changed on a group; only members`,
          );
        }
      }
      return resource(role, await usersService.rows(caller));
    },

    /** PUT /Groups/{id} (RFC 7644 §3.5.1): the members become exactly those listed. */
    async replace(caller: ScimCaller, id: string, body: unknown) {
      const role = roleIdOf(id);
      const b = (body ?? {}) as Record<string, unknown>;
      sameName(role, b.displayName);
      await replaceMembers(caller, role, b.members === undefined ? [] : membersOf(b.members));
      return resource(role, await usersService.rows(caller));
    },
  };
}
