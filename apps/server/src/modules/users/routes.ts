import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import { authOf, tenantOf } from '../../lib/access.ts';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { BuiltInRole } from '@rally/shared';
import {
  changeRoleBody,
  invitationLookupReply,
  invitationSchema,
  inviteBody,
  memberSchema,
  messageReply,
  selfReply,
  signupBody,
} from '@rally/shared/schemas/auth';
import type { Db } from '../../db/client.ts';
import { clients, memberships, userRequests, users } from '../../db/schema/index.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { FieldError, httpError, oneRow } from '../../lib/errors.ts';
import { hashPassword } from '../../lib/passwords.ts';
import { findUserByEmail } from '../auth/index.ts';
import { selfOfSession } from '../../plugins/auth.ts';
import { emails } from '../auth/emails.ts';
import { auditRequest } from '../audit/index.ts';

const INVITATION_TTL = 7 * 86_400_000;
const OWNER: BuiltInRole = 'purple_owner';
const uuidParam = (what: string) => z.uuid(`must be the id (UUID) of a ${what}`);

const toInvitation = (r: typeof userRequests.$inferSelect) => ({
  id: r.id,
  email: r.email,
  role: r.role,
  created_at: r.createdAt.toISOString(),
  expires_at: r.expiresAt.toISOString(),
});

async function membershipOf(db: Db, clientId: string, userId: string) {
  const [m] = await db
    .select()
    .from(memberships)
    .where(and(eq(memberships.clientId, clientId), eq(memberships.userId, userId)));
  return m ?? null;
}

async function ownerCount(db: Db, clientId: string): Promise<number> {
  const [r] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(memberships)
    .where(and(eq(memberships.clientId, clientId), eq(memberships.role, OWNER)));
  return r?.n ?? 0;
}

/** Members of a client, their roles, and invitations (SPEC.md §7 "Authentication and users"). */
export const userRoutes: FastifyPluginAsyncZod = async (app) => {
  const { db, config } = app;

  app.get(
    '/rest/client/:clientId/users',
    {
      config: { access: { permission: 'users.read' } },
      schema: {
        tags: ['users'],
        summary: 'Members of the client',
        params: z.object({ clientId: uuidParam('client') }),
        response: { 200: z.array(memberSchema) },
      },
    },
    async (request) =>
      db
        .select({
          id: users.id,
          email: users.email,
          first_name: users.firstName,
          last_name: users.lastName,
          role: memberships.role,
          permissions: memberships.permissions,
        })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.clientId, tenantOf(request).clientId))
        .orderBy(asc(users.firstName), asc(users.lastName)),
  );

  app.patch(
    '/rest/client/:clientId/user/:id',
    {
      config: { access: { permission: 'users.write' } },
      schema: {
        tags: ['users'],
        summary: "Change a member's role",
        params: z.object({ clientId: uuidParam('client'), id: uuidParam('user') }),
        body: changeRoleBody,
        response: { 200: memberSchema, 403: messageReply, 404: messageReply, 409: messageReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const m = await membershipOf(db, tenant.clientId, request.params.id);
      if (!m) return reply.code(404).send({ message: 'This user is not a member of this client.' });
      const role = request.body.role;
      // Only owners make or unmake owners, so an admin cannot promote themselves.
      if ((role === OWNER || m.role === OWNER) && tenant.role !== OWNER) {
        return reply
          .code(403)
          .send({ message: 'Access Denied: only an owner can grant or remove the owner role.' });
      }
      if (m.role === OWNER && role !== OWNER && (await ownerCount(db, tenant.clientId)) <= 1) {
        return reply
          .code(409)
          .send({ message: 'A client needs at least one owner. Make someone else owner first.' });
      }
      await db
        .update(memberships)
        .set({ role, permissions: [...BUILT_IN_ROLES[role]], updatedAt: new Date() })
        .where(eq(memberships.id, m.id));
      await app.identity.invalidateUser(m.userId);
      if (m.role !== role) {
        await auditRequest(db, request, {
          action: 'member.role_changed',
          target: { kind: 'user', id: m.userId },
          details: { from: m.role, to: role },
        });
      }
      const u = oneRow(await db.select().from(users).where(eq(users.id, m.userId)));
      return {
        id: m.userId,
        email: u.email,
        first_name: u.firstName,
        last_name: u.lastName,
        role,
        permissions: [...BUILT_IN_ROLES[role]],
      };
    },
  );

  app.delete(
    '/rest/user/:id',
    {
      config: { access: { permission: 'users.write' } },
      schema: {
        tags: ['users'],
        summary: 'Remove a member from the current client (x-client-id)',
        params: z.object({ id: uuidParam('user') }),
        response: { 204: z.null(), 403: messageReply, 404: messageReply, 409: messageReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const m = await membershipOf(db, tenant.clientId, request.params.id);
      if (!m) return reply.code(404).send({ message: 'This user is not a member of this client.' });
      if (m.role === OWNER && tenant.role !== OWNER) {
        return reply.code(403).send({ message: 'Access Denied: only an owner can remove an owner.' });
      }
      if (m.role === OWNER && (await ownerCount(db, tenant.clientId)) <= 1) {
        return reply
          .code(409)
          .send({ message: 'A client needs at least one owner. Make someone else owner first.' });
      }
      await db.delete(memberships).where(eq(memberships.id, m.id));
      await app.identity.invalidateUser(m.userId);
      await auditRequest(db, request, {
        action: 'member.removed',
        target: { kind: 'user', id: m.userId },
        details: { role: m.role },
      });
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/rest/user_request',
    {
      config: { access: { permission: 'users.write' } },
      schema: {
        tags: ['users'],
        summary: 'Invite someone to the current client by e-mail (sending again renews the link)',
        body: inviteBody,
        response: { 201: invitationSchema, 403: messageReply, 409: messageReply },
      },
    },
    async (request, reply) => {
      const tenant = tenantOf(request);
      const { email, role } = request.body;
      if (role === OWNER && tenant.role !== OWNER) {
        return reply.code(403).send({ message: 'Access Denied: only an owner can invite an owner.' });
      }
      const existing = await findUserByEmail(db, email);
      if (existing) {
        const [member] = await db
          .select({ id: memberships.id })
          .from(memberships)
          .where(and(eq(memberships.clientId, tenant.clientId), eq(memberships.userId, existing.id)));
        if (member) return reply.code(409).send({ message: `${email} is already a member of this client.` });
      }
      const token = randomToken();
      const expiresAt = new Date(Date.now() + INVITATION_TTL);
      const invitation = await db.transaction(async (tx) => {
        const [open] = await tx
          .select()
          .from(userRequests)
          .where(
            and(
              eq(userRequests.clientId, tenant.clientId),
              eq(sql`lower(${userRequests.email})`, email),
              isNull(userRequests.acceptedAt),
            ),
          );
        const values = {
          role,
          tokenHash: hashToken(token),
          expiresAt,
          createdAt: new Date(),
          invitedBy: authOf(request).user.id,
        };
        const rows = open
          ? await tx.update(userRequests).set(values).where(eq(userRequests.id, open.id)).returning()
          : await tx
              .insert(userRequests)
              .values({ ...values, clientId: tenant.clientId, email })
              .returning();
        const [client] = await tx
          .select({ name: clients.name })
          .from(clients)
          .where(eq(clients.id, tenant.clientId));
        const inviter =
          `${authOf(request).user.firstName} ${authOf(request).user.lastName}`.trim() ||
          authOf(request).user.email;
        const outboxId = await app.outbox.store(
          {
            ...emails.invitation(
              email,
              inviter,
              client?.name ?? 'a client',
              `${config.publicUrl}/signup?hash=${token}`,
            ),
            clientId: tenant.clientId,
          },
          tx,
        );
        return { row: oneRow(rows), outboxId };
      });
      await app.outbox.dispatch(invitation.outboxId);
      await auditRequest(db, request, {
        action: 'invitation.sent',
        target: { kind: 'invitation', id: invitation.row.id },
        details: { email, role },
      });
      return reply.code(201).send(toInvitation(invitation.row));
    },
  );

  app.get(
    '/rest/client/:clientId/user_request/invite',
    {
      config: { access: { permission: 'users.read' } },
      schema: {
        tags: ['users'],
        summary: 'Pending invitations of the client',
        params: z.object({ clientId: uuidParam('client') }),
        response: { 200: z.array(invitationSchema) },
      },
    },
    async (request) => {
      const rows = await db
        .select()
        .from(userRequests)
        .where(and(eq(userRequests.clientId, tenantOf(request).clientId), isNull(userRequests.acceptedAt)))
        .orderBy(asc(userRequests.email));
      return rows.map(toInvitation);
    },
  );

  app.delete(
    '/rest/client/user_request',
    {
      config: { access: { permission: 'users.write' } },
      schema: {
        tags: ['users'],
        summary: 'Revoke an invitation of the current client',
        querystring: z.object({ id: uuidParam('invitation') }),
        response: { 204: z.null(), 404: messageReply },
      },
    },
    async (request, reply) => {
      const deleted = await db
        .delete(userRequests)
        .where(
          and(
            eq(userRequests.id, request.query.id),
            eq(userRequests.clientId, tenantOf(request).clientId),
            isNull(userRequests.acceptedAt),
          ),
        )
        .returning({ id: userRequests.id, email: userRequests.email });
      const [revoked] = deleted;
      if (!revoked) return reply.code(404).send({ message: 'No such pending invitation.' });
      await auditRequest(db, request, {
        action: 'invitation.revoked',
        target: { kind: 'invitation', id: revoked.id },
        details: { email: revoked.email },
      });
      return reply.code(204).send(null);
    },
  );

  const openInvitation = async (hash: string) => {
    const [row] = await db
      .select({ invitation: userRequests, clientName: clients.name })
      .from(userRequests)
      .innerJoin(clients, eq(clients.id, userRequests.clientId))
      .where(
        and(
          eq(userRequests.tokenHash, hashToken(hash)),
          isNull(userRequests.acceptedAt),
          gt(userRequests.expiresAt, new Date()),
        ),
      );
    return row ?? null;
  };

  app.get(
    '/api/user_request/:hash',
    {
      config: { access: 'public' },
      schema: {
        tags: ['users'],
        summary: 'Look up an invitation by its link',
        params: z.object({ hash: z.string().min(20).max(200) }),
        response: { 200: invitationLookupReply, 404: messageReply },
      },
    },
    async (request, reply) => {
      const found = await openInvitation(request.params.hash);
      if (!found) return reply.code(404).send({ message: 'This invitation is invalid or has expired.' });
      const { invitation, clientName } = found;
      return {
        email: invitation.email,
        client_id: invitation.clientId,
        client_name: clientName,
        role: invitation.role,
        has_account: (await findUserByEmail(db, invitation.email)) !== null,
      };
    },
  );

  app.post(
    '/api/signup',
    {
      config: { access: 'public' },
      schema: {
        tags: ['users'],
        summary:
          'Accept an invitation: creates the account, or joins the client when signed in as the invited address',
        body: signupBody,
        response: { 200: selfReply, 201: selfReply, 404: messageReply, 409: messageReply },
      },
    },
    async (request, reply) => {
      const found = await openInvitation(request.body.hash);
      if (!found) return reply.code(404).send({ message: 'This invitation is invalid or has expired.' });
      const { invitation } = found;
      const role = invitation.role as BuiltInRole;
      const existing = await findUserByEmail(db, invitation.email);
      if (existing && request.auth?.user.id !== existing.id) {
        return reply.code(409).send({
          message: `An account for ${invitation.email} exists. Sign in as ${invitation.email} to accept this invitation.`,
        });
      }
      const b = request.body;
      let newAccount: { firstName: string; lastName: string; passwordHash: string } | null = null;
      if (!existing) {
        const { first_name: firstName, last_name: lastName, password } = b;
        if (!firstName || !lastName || !password) {
          const missing = (['first_name', 'last_name', 'password'] as const).filter((f) => !b[f]);
          throw new FieldError(missing.map((f) => ({ field: `body.${f}`, message: 'is required' })));
        }
        newAccount = { firstName, lastName, passwordHash: await hashPassword(password) };
      }
      const userId = await db.transaction(async (tx) => {
        // Claim the invitation first: a second use of the same link finds it accepted.
        const claimed = await tx
          .update(userRequests)
          .set({ acceptedAt: new Date() })
          .where(and(eq(userRequests.id, invitation.id), isNull(userRequests.acceptedAt)))
          .returning({ id: userRequests.id });
        if (!claimed.length) return null;
        const id = newAccount
          ? oneRow(
              await tx
                .insert(users)
                .values({ email: invitation.email, ...newAccount })
                .returning({ id: users.id }),
            ).id
          : existing?.id;
        if (!id) return null;
        const [hasDefault] = await tx
          .select({ id: memberships.id })
          .from(memberships)
          .where(and(eq(memberships.userId, id), eq(memberships.isDefault, true)));
        await tx
          .insert(memberships)
          .values({
            userId: id,
            clientId: invitation.clientId,
            role,
            permissions: [...(BUILT_IN_ROLES[role] ?? [])],
            isDefault: !hasDefault,
          })
          .onConflictDoNothing();
        return id;
      });
      if (!userId) return reply.code(404).send({ message: 'This invitation is invalid or has expired.' });
      if (!existing) await app.sessions.start(request, reply, userId, { method: 'invitation' });
      await app.identity.invalidateUser(userId);
      await auditRequest(db, request, {
        clientId: invitation.clientId,
        action: 'member.added',
        target: { kind: 'user', id: userId },
        details: { role, invitation_id: invitation.id },
      });
      const self = await app.identity.self(userId);
      if (!self) throw httpError(404, 'This invitation is invalid or has expired.');
      return reply.code(existing ? 200 : 201).send(request.auth ? selfOfSession(self, request.auth) : self);
    },
  );
};
