import { describe, expect, it } from 'vitest';
import type { AuditListReply, AuditVerifyReply } from '@rally/shared/schemas/audit';
import { clientDomains } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { createScimToken } from './tokens.ts';

/**
 * Issue 44: "An append-only record per client of who did what and from where: … SSO and role
 * changes …". What SCIM provisioning changes (a member created, their details changed,
 * deactivated and reactivated, their role changed through a group, deleted) is in the client's
 * audit log, the SCIM token (its id and name) as the actor, the identity provider's address and
 * user agent as where from; read back by the owner through the audit log API, and the chain still
 * verifies. A refused change records nothing, and another client's log sees none of it.
 */
describe('SCIM changes in the audit log', async () => {
  const app = await createTestApp({ workers: false, env: { PUBLIC_URL: 'https://rally.example.net' } });
  const acme = await makeClient(app, 'Acme');
  const globex = await makeClient(app, 'Globex');
  await app.db
    .insert(clientDomains)
    .values({ clientId: acme, domain: 'example.com', verifiedAt: new Date() });
  const { browser: owner, user: ownerUser } = await signedIn(app, { [acme]: 'purple_owner' });
  const { browser: globexOwner } = await signedIn(app, { [globex]: 'purple_owner' });
  const made = await createScimToken(app.db, {
    clientId: acme,
    name: 'Okta',
    defaultRole: 'yellow_sdr',
    createdBy: { id: ownerUser.id, name: 'Owner' },
  });
  const UA = 'Okta SCIM Client 1.0';
  const scim = (method: 'POST' | 'PUT' | 'PATCH' | 'DELETE', url: string, body?: unknown) =>
    app.inject({
      method,
      url: `/scim/v2${url}`,
      headers: {
        authorization: `Bearer ${made.secret}`,
        'user-agent': UA,
        ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
      },
      payload: body === undefined ? undefined : JSON.stringify(body),
    });
  const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
  const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
  const log = async (query: string, who = owner, clientId = acme) => {
    const res = await who.get(`/v1/rest/client/${clientId}/audit_log${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return (res.json() as AuditListReply).items;
  };
  const verified = async () => {
    const res = await owner.get(`/v1/rest/client/${acme}/audit_log/verify`);
    expect(res.statusCode).toBe(200);
    return res.json() as AuditVerifyReply;
  };

  it('records create, update, deactivate, reactivate, role change and delete, with the token as actor', async () => {
    const created = await scim('POST', '/Users', {
      schemas: [USER],
      userName: 'bjensen@example.com',
      externalId: 'okta-1',
      name: { givenName: 'Barbara', familyName: 'Jensen' },
    });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: string }).id;
    const patch = (...Operations: unknown[]) =>
      scim('PATCH', `/Users/${id}`, { schemas: [PATCH_OP], Operations });
    expect((await patch({ op: 'replace', path: 'name.familyName', value: 'Jensen-Smith' })).statusCode).toBe(
      200,
    );
    expect((await patch({ op: 'replace', path: 'active', value: false })).statusCode).toBe(200);
    expect((await patch({ op: 'replace', path: 'active', value: true })).statusCode).toBe(200);
    const grouped = await scim('PATCH', '/Groups/green_manager', {
      schemas: [PATCH_OP],
      Operations: [{ op: 'add', path: 'members', value: [{ value: id }] }],
    });
    expect(grouped.statusCode, grouped.body).toBe(200);
    expect((await scim('DELETE', `/Users/${id}`)).statusCode).toBe(204);

    const items = (await log(`?target_id=${id}`)).sort((a, b) => a.seq - b.seq);
    expect(items.map((e) => e.action)).toEqual([
      'member.added',
      'member.updated',
      'member.deactivated',
      'member.reactivated',
      'member.role_changed',
      'member.removed',
    ]);
    const actor = { kind: 'scim', id: made.token.id, name: 'Okta' };
    for (const e of items) {
      expect(e).toMatchObject({ actor_user_id: null, actor_email: null, target_kind: 'user', target_id: id });
      expect(e.details.actor).toEqual(actor);
      expect(e.user_agent).toBe(UA);
      // The token's secret is never in an entry.
      expect(JSON.stringify(e)).not.toContain(made.secret);
    }
    expect(items[0]!.details).toMatchObject({
      user_name: 'bjensen@example.com',
      external_id: 'okta-1',
      role: 'yellow_sdr',
      active: true,
    });
    expect(items[1]!.details.changes).toEqual({ familyName: { from: 'Jensen', to: 'Jensen-Smith' } });
    expect(items[4]!.details).toMatchObject({ from: 'yellow_sdr', to: 'green_manager' });
    expect(items[5]!.details).toMatchObject({ role: 'green_manager' });
    expect(await verified()).toMatchObject({ ok: true, first_broken: null });
    // Another client's owner sees none of it.
    expect(await log(`?target_id=${id}`, globexOwner, globex)).toEqual([]);
  });

  it("records nothing for a change that changes nothing, nor for a refused one (the client's only owner)", async () => {
    const solo = await makeClient(app, 'Solo');
    await app.db
      .insert(clientDomains)
      .values({ clientId: solo, domain: 'solo.test', verifiedAt: new Date() });
    const { browser: boss, user } = await signedIn(
      app,
      { [solo]: 'purple_owner' },
      { email: 'boss@solo.test' },
    );
    const soloToken = await createScimToken(app.db, {
      clientId: solo,
      name: 'Entra',
      defaultRole: 'grey_viewer',
      createdBy: { id: user.id, name: 'Boss' },
    });
    const call = (method: 'POST' | 'PATCH', url: string, body: unknown) =>
      app.inject({
        method,
        url: `/scim/v2${url}`,
        headers: { authorization: `Bearer ${soloToken.secret}`, 'content-type': 'application/scim+json' },
        payload: JSON.stringify(body),
      });
    const created = await call('POST', '/Users', { schemas: [USER], userName: 'boss@solo.test' });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: string }).id;
    const active = (value: boolean) =>
      call('PATCH', `/Users/${id}`, {
        schemas: [PATCH_OP],
        Operations: [{ op: 'replace', path: 'active', value }],
      });
    expect((await active(true)).statusCode).toBe(200);
    const refused = await active(false);
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ scimType: 'mutability' });
    // (The owner's own sign-in is there too: only provisioning's entries are looked at.)
    const items = (await log(`?target_id=${id}`, boss, solo)).filter((e) => e.action.startsWith('member.'));
    expect(items.map((e) => e.action)).toEqual(['member.added']);
    expect(items[0]!.details.actor).toEqual({ kind: 'scim', id: soloToken.token.id, name: 'Entra' });
    const chain = await boss.get(`/v1/rest/client/${solo}/audit_log/verify`);
    expect(chain.json()).toMatchObject({ ok: true, first_broken: null });
  });
});
