import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { memberships } from '../../db/schema/index.ts';
import { createTestApp, startSmtpServer, waitFor } from '../../../test/helpers.ts';
import { Browser, PASSWORD, makeClient, makeUser, signedIn } from '../../../test/http.ts';

describe('members of a client', async () => {
  const app = await createTestApp();
  const acme = await makeClient(app, 'Acme');
  const other = await makeClient(app, 'Other');
  const { user: owner, browser } = await signedIn(app, { [acme]: 'purple_owner' });
  const sdr = await makeUser(app, { [acme]: 'yellow_sdr' }, { firstName: 'Sam' });
  const stranger = await makeUser(app, { [other]: 'yellow_sdr' });

  it('GET lists members with role and permissions', async () => {
    const res = await browser.get(`/v1/rest/client/${acme}/users`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: owner.id, role: 'purple_owner' }),
        expect.objectContaining({
          id: sdr.id,
          role: 'yellow_sdr',
          permissions: ['reports.read'],
          first_name: 'Sam',
        }),
      ]),
    );
    expect(res.json().some((m: { id: string }) => m.id === stranger.id)).toBe(false);
  });

  it("PATCH changes a role (permissions follow); 422 for an unknown role; 404 for another client's user", async () => {
    const res = await browser.patch(`/v1/rest/client/${acme}/user/${sdr.id}`, { role: 'green_manager' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      role: 'green_manager',
      permissions: expect.arrayContaining(['cadence.write', 'users.read']),
    });
    const bad = await browser.patch(`/v1/rest/client/${acme}/user/${sdr.id}`, { role: 'red_king' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.role');
    const foreign = await browser.patch(`/v1/rest/client/${acme}/user/${stranger.id}`, {
      role: 'grey_viewer',
    });
    expect(foreign.statusCode).toBe(404);
  });

  it('keeps at least one owner, and only owners grant the owner role', async () => {
    const last = await browser.patch(`/v1/rest/client/${acme}/user/${owner.id}`, { role: 'blue_admin' });
    expect(last.statusCode).toBe(409);
    const { browser: admin } = await signedIn(app, { [acme]: 'blue_admin' });
    const escalate = await admin.patch(`/v1/rest/client/${acme}/user/${sdr.id}`, { role: 'purple_owner' });
    expect(escalate.statusCode).toBe(403);
    const removeOwner = await admin.delete(`/v1/rest/user/${owner.id}`);
    expect(removeOwner.statusCode).toBe(403);
  });

  it("a role change or a removal applies to the member's very next call (no stale cache)", async () => {
    const { user: m, browser: member } = await signedIn(app, { [acme]: 'yellow_sdr' });
    expect((await member.get(`/v1/rest/client/${acme}/users`)).statusCode).toBe(403);
    expect(
      (await browser.patch(`/v1/rest/client/${acme}/user/${m.id}`, { role: 'green_manager' })).statusCode,
    ).toBe(200);
    expect((await member.get(`/v1/rest/client/${acme}/users`)).statusCode).toBe(200);
    expect((await member.get('/v1/api/user/self')).json().clients[0].role).toBe('green_manager');
    expect((await browser.delete(`/v1/rest/user/${m.id}`)).statusCode).toBe(204);
    expect((await member.get(`/v1/rest/client/${acme}/users`)).statusCode).toBe(403);
  });

  it('DELETE removes the member from the current client only', async () => {
    const both = await makeUser(app, { [acme]: 'grey_viewer', [other]: 'grey_viewer' });
    expect((await browser.delete(`/v1/rest/user/${both.id}`)).statusCode).toBe(204);
    const left = await app.db.select().from(memberships).where(eq(memberships.userId, both.id));
    expect(left.map((m) => m.clientId)).toEqual([other]);
    expect((await browser.delete(`/v1/rest/user/${both.id}`)).statusCode).toBe(404);
    expect((await browser.delete(`/v1/rest/user/not-a-uuid`)).statusCode).toBe(422);
  });
});

describe('invitations', async () => {
  const smtp = await startSmtpServer();
  afterAll(() => smtp.close());
  const app = await createTestApp({ env: { SMTP_URL: smtp.url, PUBLIC_URL: 'http://rally.localhost:3000' } });
  const acme = await makeClient(app, 'Acme');
  const other = await makeClient(app, 'Other');
  const { browser: owner } = await signedIn(app, { [acme]: 'purple_owner' });
  const hashFor = async (to: string) => {
    const mail = await waitFor(() => smtp.received.filter((m) => m.to.includes(to)).at(-1));
    return (
      mail.raw
        .replace(/=\r?\n/g, '')
        .replace(/=3D/g, '=')
        .match(/\/signup\?hash=([\w-]+)/)?.[1] ?? ''
    );
  };

  it('invite mails /signup?hash=; the link shows the invitation; accepting creates the account and the membership', async () => {
    const res = await owner.post('/v1/rest/user_request', {
      email: 'New.Person@Example.com',
      role: 'yellow_sdr',
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ email: 'new.person@example.com', role: 'yellow_sdr' });
    const hash = await hashFor('new.person@example.com');

    const pending = await owner.get(`/v1/rest/client/${acme}/user_request/invite`);
    expect(pending.json()).toEqual([expect.objectContaining({ email: 'new.person@example.com' })]);

    const guest = new Browser(app);
    const lookup = await guest.get(`/v1/api/user_request/${hash}`);
    expect(lookup.json()).toEqual({
      email: 'new.person@example.com',
      client_id: acme,
      client_name: 'Acme',
      role: 'yellow_sdr',
      has_account: false,
    });
    const missing = await guest.post('/v1/api/signup', { hash });
    expect(missing.statusCode).toBe(422);
    expect(missing.json().errors.map((e: { field: string }) => e.field)).toEqual([
      'body.first_name',
      'body.last_name',
      'body.password',
    ]);

    const accept = await guest.post('/v1/api/signup', {
      hash,
      first_name: 'New',
      last_name: 'Person',
      password: 'long enough password',
    });
    expect(accept.statusCode).toBe(201);
    expect(accept.json().clients).toEqual([
      expect.objectContaining({ client_id: acme, role: 'yellow_sdr', is_default: true }),
    ]);
    expect((await guest.get('/v1/api/user/self')).statusCode).toBe(200);
    // Single use.
    expect(
      (
        await new Browser(app).post('/v1/api/signup', {
          hash,
          first_name: 'X',
          last_name: 'Y',
          password: 'long enough password',
        })
      ).statusCode,
    ).toBe(404);
    expect((await owner.get(`/v1/rest/client/${acme}/user_request/invite`)).json()).toEqual([]);
  });

  it('an existing account accepts while signed in as the invited address', async () => {
    const existing = await makeUser(app, { [other]: 'purple_owner' });
    await owner.post('/v1/rest/user_request', { email: existing.email, role: 'green_manager' });
    const hash = await hashFor(existing.email);
    const anon = await new Browser(app).post('/v1/api/signup', { hash });
    expect(anon.statusCode).toBe(409);
    const me = await new Browser(app).signIn(existing.email, PASSWORD);
    const ok = await me.post('/v1/api/signup', { hash });
    expect(ok.statusCode).toBe(200);
    const [m] = await app.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.userId, existing.id), eq(memberships.clientId, acme)));
    expect(m).toMatchObject({ role: 'green_manager', isDefault: false });
  });

  it('resending renews the link; revoking removes it; members and bad input are refused', async () => {
    await owner.post('/v1/rest/user_request', { email: 'twice@example.com', role: 'grey_viewer' });
    const first = await hashFor('twice@example.com');
    const again = await owner.post('/v1/rest/user_request', {
      email: 'twice@example.com',
      role: 'yellow_sdr',
    });
    expect(again.statusCode).toBe(201);
    await waitFor(async () => (await hashFor('twice@example.com')) !== first);
    expect((await new Browser(app).get(`/v1/api/user_request/${first}`)).statusCode).toBe(404);
    const list = (await owner.get(`/v1/rest/client/${acme}/user_request/invite`)).json();
    const invite = list.find((i: { email: string }) => i.email === 'twice@example.com');
    expect(invite.role).toBe('yellow_sdr');

    expect((await owner.delete(`/v1/rest/client/user_request?id=${invite.id}`)).statusCode).toBe(204);
    expect((await owner.delete(`/v1/rest/client/user_request?id=${invite.id}`)).statusCode).toBe(404);
    expect((await owner.delete('/v1/rest/client/user_request')).statusCode).toBe(422);

    const member = await makeUser(app, { [acme]: 'grey_viewer' });
    expect(
      (await owner.post('/v1/rest/user_request', { email: member.email, role: 'grey_viewer' })).statusCode,
    ).toBe(409);
    const bad = await owner.post('/v1/rest/user_request', { email: 'nope', role: 'yellow_sdr' });
    expect(bad.statusCode).toBe(422);
    expect(bad.json().errors[0].field).toBe('body.email');
  });

  it("another client's invitation cannot be revoked (404), and only owners invite owners", async () => {
    const { browser: otherOwner } = await signedIn(app, { [other]: 'purple_owner' });
    await owner.post('/v1/rest/user_request', { email: 'mine@example.com', role: 'grey_viewer' });
    const [mine] = (await owner.get(`/v1/rest/client/${acme}/user_request/invite`))
      .json()
      .filter((i: { email: string }) => i.email === 'mine@example.com');
    expect((await otherOwner.delete(`/v1/rest/client/user_request?id=${mine.id}`)).statusCode).toBe(404);
    const { browser: admin } = await signedIn(app, { [acme]: 'blue_admin' });
    expect(
      (await admin.post('/v1/rest/user_request', { email: 'boss@example.com', role: 'purple_owner' }))
        .statusCode,
    ).toBe(403);
  });
});
