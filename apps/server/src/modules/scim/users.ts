import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';
import { SCIM_GROUP_NAMES } from '@rally/shared/schemas/scim';
import type { ScimRole } from '@rally/shared/schemas/scim';
import type { Db } from '../../db/client.ts';
import { memberships, scimUsers, users } from '../../db/schema/index.ts';
import { oneRow } from '../../lib/errors.ts';
import { coversAddress } from '../domains/index.ts';
import { ScimError, badRequest, notFound } from './errors.ts';
import { parseFilter } from './filter.ts';
import { auditScim } from './audit.ts';
import { grantMembership, membershipOf, revokeMembership } from './membership.ts';
import type { DbOrTx } from './membership.ts';
import type { ScimCaller } from './tokens.ts';
import { patchUser, userFromBody } from './user-input.ts';
import type { PatchOp, UserState } from './user-input.ts';

export const USER_SCHEMA = 'urn:ietf:params:scim:schemas:core:2.0:User';
export const LIST_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:ListResponse';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export type ScimDeps = {
  db: Db;
  /** …/scim/v2, for meta.location (RFC 7643 §3.1). */
  baseUrl: string;
  /** Forget what is cached about the user on every instance, so a change holds at their next request. */
  forgetUser: (userId: string) => Promise<void>;
};

type Row = typeof scimUsers.$inferSelect & { memberRole: string | null };

const NOT_FOUND = 'This client has no such provisioned user.';

const isUniqueViolation = (err: unknown) => {
  const e = err as { code?: string; cause?: { code?: string } };
  return e.code === '23505' || e.cause?.code === '23505';
};

/** The member's current role: their membership's while active, else the one kept to give back. */
export const roleOf = (row: Row) => row.memberRole ?? row.role;

function selectRows(db: DbOrTx) {
  return db
    .select({ u: scimUsers, memberRole: memberships.role })
    .from(scimUsers)
    .leftJoin(
      memberships,
      and(eq(memberships.clientId, scimUsers.clientId), eq(memberships.userId, scimUsers.userId)),
    );
}

async function rowOf(db: DbOrTx, clientId: string, id: string): Promise<Row | null> {
  if (!UUID.test(id)) return null;
  const [r] = await selectRows(db).where(and(eq(scimUsers.clientId, clientId), eq(scimUsers.userId, id)));
  return r ? { ...r.u, memberRole: r.memberRole } : null;
}

const stateOf = (row: Row): UserState => ({
  userName: row.userName,
  externalId: row.externalId,
  givenName: row.givenName,
  familyName: row.familyName,
  active: row.active,
});

export function createUserService(deps: ScimDeps) {
  const { db, baseUrl } = deps;

  /** RFC 7643 §4.1 and §8.2: the User as the identity provider reads it back. */
  function resource(row: Row) {
    const role = roleOf(row);
    const display = `${row.givenName} ${row.familyName}`.trim();
    return {
      schemas: [USER_SCHEMA],
      id: row.userId,
      ...(row.externalId !== null ? { externalId: row.externalId } : {}),
      userName: row.userName,
      name: {
        givenName: row.givenName,
        familyName: row.familyName,
        ...(display ? { formatted: display } : {}),
      },
      displayName: display || row.userName,
      emails: [{ value: row.userName.toLowerCase(), type: 'work', primary: true }],
      active: row.active,
      // readOnly (§4.1.2): the group this member's role is, if provisioning manages it.
      groups:
        role in SCIM_GROUP_NAMES
          ? [{ value: role, display: SCIM_GROUP_NAMES[role as ScimRole], $ref: `${baseUrl}/Groups/${role}` }]
          : [],
      meta: {
        resourceType: 'User',
        created: row.createdAt.toISOString(),
        lastModified: row.updatedAt.toISOString(),
        location: `${baseUrl}/Users/${row.userId}`,
      },
    };
  }

  async function conflicts(tx: DbOrTx, clientId: string, next: UserState, self: string | null) {
    const [byName] = await tx
      .select({ id: scimUsers.userId })
      .from(scimUsers)
      .where(
        and(
          eq(scimUsers.clientId, clientId),
          sql`lower(${scimUsers.userName}) = ${next.userName.toLowerCase()}`,
        ),
      );
    if (byName && byName.id !== self) {
      throw new ScimError(
        409,
        `a user with userName ${next.userName} is already provisioned in this client`,
        'uniqueness',
      );
    }
    if (next.externalId === null) return;
    const [byExternal] = await tx
      .select({ id: scimUsers.userId })
      .from(scimUsers)
      .where(and(eq(scimUsers.clientId, clientId), eq(scimUsers.externalId, next.externalId)));
    if (byExternal && byExternal.id !== self) {
      throw new ScimError(
        409,
        `a user with externalId ${next.externalId} is already provisioned in this client`,
        'uniqueness',
      );
    }
  }

  /** Stores a changed state; an `active` change grants or revokes the membership in this client only. */
  async function store(caller: ScimCaller, row: Row, next: UserState): Promise<Row> {
    const { clientId } = caller;
    await db.transaction(async (tx) => {
      await conflicts(tx, clientId, next, row.userId);
      const role = roleOf(row);
      await tx
        .update(scimUsers)
        .set({
          externalId: next.externalId,
          givenName: next.givenName,
          familyName: next.familyName,
          active: next.active,
          role,
          updatedAt: new Date(),
        })
        .where(and(eq(scimUsers.clientId, clientId), eq(scimUsers.userId, row.userId)));
      // Only an account provisioning made is renamed: others are people with a life beyond this client.
      if (row.createdAccount) {
        await tx
          .update(users)
          .set({ firstName: next.givenName, lastName: next.familyName, updatedAt: new Date() })
          .where(eq(users.id, row.userId));
      }
      if (row.active && !next.active) await revokeMembership(tx, clientId, row.userId);
      if (!row.active && next.active) await grantMembership(tx, clientId, row.userId, role);
      // What changed, with its values (names and identifiers the identity provider sent; no secrets).
      const before = stateOf(row);
      const changed = (['externalId', 'givenName', 'familyName'] as const).filter(
        (k) => before[k] !== next[k],
      );
      const who = { user_name: row.userName };
      if (changed.length) {
        await auditScim(tx, caller, 'member.updated', row.userId, {
          ...who,
          changes: Object.fromEntries(changed.map((k) => [k, { from: before[k], to: next[k] }])),
        });
      }
      if (row.active !== next.active) {
        await auditScim(tx, caller, next.active ? 'member.reactivated' : 'member.deactivated', row.userId, {
          ...who,
          role,
        });
      }
    });
    await deps.forgetUser(row.userId);
    const stored = await rowOf(db, clientId, row.userId);
    if (!stored) throw notFound(NOT_FOUND);
    return stored;
  }

  async function existing(caller: ScimCaller, id: string): Promise<Row> {
    const row = await rowOf(db, caller.clientId, id);
    if (!row) throw notFound(NOT_FOUND);
    return row;
  }

  return {
    resource,

    /** GET /Users (RFC 7644 §3.4.2): filter on userName, externalId, active or id; paged. */
    async list(caller: ScimCaller, filter: string | undefined, page: { startIndex: number; count: number }) {
      const where: SQL[] = [eq(scimUsers.clientId, caller.clientId)];
      for (const c of filter
        ? parseFilter(filter, ['username', 'externalid', 'active', 'id', 'emails.value'])
        : []) {
        if (c.attribute === 'active') {
          if (typeof c.value !== 'boolean')
            throw badRequest('invalidFilter', 'active is compared with true or false');
          where.push(eq(scimUsers.active, c.value));
          continue;
        }
        if (typeof c.value !== 'string')
          throw badRequest('invalidFilter', `${c.attribute} is compared with a string`);
        if (c.attribute === 'username' || c.attribute === 'emails.value') {
          // userName is case-insensitive (RFC 7643 §4.1.1, caseExact false).
          where.push(sql`lower(${scimUsers.userName}) = ${c.value.toLowerCase()}`);
        } else if (c.attribute === 'externalid') {
          where.push(eq(scimUsers.externalId, c.value)); // caseExact (§3.1)
        } else {
          where.push(UUID.test(c.value) ? eq(scimUsers.userId, c.value) : sql`false`);
        }
      }
      const [total] = await db
        .select({ n: count() })
        .from(scimUsers)
        .where(and(...where));
      const rows = page.count
        ? await selectRows(db)
            .where(and(...where))
            .orderBy(asc(scimUsers.createdAt), asc(scimUsers.userId))
            .limit(page.count)
            .offset(page.startIndex - 1)
        : [];
      return {
        schemas: [LIST_SCHEMA],
        totalResults: total?.n ?? 0,
        itemsPerPage: rows.length,
        startIndex: page.startIndex,
        Resources: rows.map((r) => resource({ ...r.u, memberRole: r.memberRole })),
      };
    },

    async get(caller: ScimCaller, id: string) {
      return resource(await existing(caller, id));
    },

    /**
     * POST /Users (RFC 7644 §3.3). The client's single sign-on speaks only for its verified domains
     * (docs/decisions/0014), and so does its provisioning: another address is refused. An account
     * with the address is reused (its other memberships untouched), else one is made without a
     * password (the member signs in through single sign-on or a mailed link).
     */
    async create(caller: ScimCaller, body: unknown) {
      const next = userFromBody(body);
      const { clientId } = caller;
      if (!(await coversAddress(db, clientId, next.userName))) {
        throw badRequest(
          'invalidValue',
          `userName ${next.userName} is not on a verified domain of this client: provisioning, like its single sign-on, speaks only for addresses on those`,
        );
      }
      let userId: string;
      try {
        userId = await db.transaction(async (tx) => {
          await conflicts(tx, clientId, next, null);
          const [found] = await tx
            .select({ id: users.id })
            .from(users)
            .where(sql`lower(${users.email}) = ${next.userName}`);
          const id =
            found?.id ??
            oneRow(
              await tx
                .insert(users)
                .values({ email: next.userName, firstName: next.givenName, lastName: next.familyName })
                .returning({ id: users.id }),
            ).id;
          // A member invited by hand keeps their role; a new one gets the token's default role.
          const member = await membershipOf(tx, clientId, id);
          const role = member?.role ?? caller.defaultRole;
          await tx.insert(scimUsers).values({
            clientId,
            userId: id,
            externalId: next.externalId,
            userName: next.userName,
            givenName: next.givenName,
            familyName: next.familyName,
            role,
            active: next.active,
            createdAccount: !found,
          });
          if (next.active && !member) await grantMembership(tx, clientId, id, role);
          if (!next.active && member) await revokeMembership(tx, clientId, id);
          await auditScim(tx, caller, 'member.added', id, {
            user_name: next.userName,
            external_id: next.externalId,
            role,
            active: next.active,
            account_created: !found,
          });
          return id;
        });
      } catch (err) {
        if (isUniqueViolation(err)) {
          throw new ScimError(
            409,
            `a user with userName ${next.userName} is already provisioned in this client`,
            'uniqueness',
          );
        }
        throw err;
      }
      await deps.forgetUser(userId);
      return resource(await existing(caller, userId));
    },

    /** PUT /Users/{id} (RFC 7644 §3.5.1): replaces what Rally keeps; userName cannot change. */
    async replace(caller: ScimCaller, id: string, body: unknown) {
      const row = await existing(caller, id);
      const next = userFromBody(body);
      if (next.userName !== row.userName.toLowerCase()) {
        throw badRequest(
          'mutability',
          'userName (the member’s e-mail address) cannot be changed by provisioning',
        );
      }
      return resource(await store(caller, row, { ...next, userName: row.userName }));
    },

    /** PATCH /Users/{id} (RFC 7644 §3.5.2), all operations or none. */
    async patch(caller: ScimCaller, id: string, ops: PatchOp[]) {
      const row = await existing(caller, id);
      return resource(await store(caller, row, patchUser(stateOf(row), ops)));
    },

    /**
     * DELETE /Users/{id} (RFC 7644 §3.6): the member leaves this client (membership and its single
     * sign-on sessions gone); the account and its other clients stay. A later GET is 404.
     */
    async remove(caller: ScimCaller, id: string): Promise<void> {
      const row = await existing(caller, id);
      await db.transaction(async (tx) => {
        await revokeMembership(tx, caller.clientId, row.userId);
        await tx
          .delete(scimUsers)
          .where(and(eq(scimUsers.clientId, caller.clientId), eq(scimUsers.userId, row.userId)));
        await auditScim(tx, caller, 'member.removed', row.userId, {
          user_name: row.userName,
          role: roleOf(row),
        });
      });
      await deps.forgetUser(row.userId);
    },

    /** For groups: the client's provisioned members with their current roles. */
    async rows(caller: ScimCaller): Promise<Row[]> {
      const rows = await selectRows(db)
        .where(eq(scimUsers.clientId, caller.clientId))
        .orderBy(asc(scimUsers.createdAt), asc(scimUsers.userId));
      return rows.map((r) => ({ ...r.u, memberRole: r.memberRole }));
    },
    rowOf: (caller: ScimCaller, id: string) => rowOf(db, caller.clientId, id),
  };
}

export type ScimUserService = ReturnType<typeof createUserService>;
export type ScimUserRow = Row;
