import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { SESSION_COOKIE } from '@rally/shared';
import { clientDomains, memberships, sessions, users } from '../../db/schema/index.ts';
import { hashToken, randomToken } from '../../lib/crypto.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, PASSWORD, makeClient, makeUser } from '../../../test/http.ts';
import { createScimToken } from './tokens.ts';

/**
 * SCIM 2.0 at /scim/v2 (RFC 7643, RFC 7644; issue 44, decision 0029): the RFC's own examples, bad
 * input, tokens, tenants, and a deactivation that ends a live session.
 */

const app = await createTestApp({ env: { PUBLIC_URL: 'https://rally.example.net' } });
const acme = await makeClient(app, 'Acme');
const globex = await makeClient(app, 'Globex');
const agency = await makeClient(app, 'Agency');
const verify = (clientId: string, domain: string) =>
  // Checked just now: the periodic re-check (queued at start) would otherwise look these up in DNS and
  // find no record, taking the verification away mid-test (it did on the PGlite lane of a slow CI).
  app.db
    .insert(clientDomains)
    .values({ clientId, domain, verifiedAt: new Date(), lastCheckedAt: new Date() });
await verify(acme, 'example.com');
await verify(globex, 'globex.test');
await app.db.insert(clientDomains).values({ clientId: acme, domain: 'unverified.test' });
const owner = await makeUser(app, { [acme]: 'purple_owner' }, { email: 'owner@example.com' });

const tokenFor = async (clientId: string, defaultRole = 'yellow_sdr') =>
  (
    await createScimToken(app.db, {
      clientId,
      name: 'IdP',
      defaultRole,
      createdBy: { id: owner.id, name: 'Owner' },
    })
  ).secret;
const acmeToken = await tokenFor(acme);
const globexToken = await tokenFor(globex, 'grey_viewer');

type Json = Record<string, unknown>;
function scim(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  url: string,
  body?: unknown,
  token = acmeToken,
) {
  return app.inject({
    method,
    url: `/scim/v2${url}`,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/scim+json' }),
    },
    payload: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}
const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const PATCH_OP = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';
const patch = (...Operations: Json[]) => ({ schemas: [PATCH_OP], Operations });
const expectError = (
  res: { statusCode: number; json(): Json; headers: Json },
  status: number,
  scimType?: string,
) => {
  expect(res.statusCode).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
  const body = res.json();
  expect(body).toMatchObject({ schemas: [ERROR], status: String(status), ...(scimType ? { scimType } : {}) });
  expect(typeof body.detail).toBe('string');
};
const membershipOf = async (userId: string, clientId: string) =>
  (
    await app.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.userId, userId), eq(memberships.clientId, clientId)))
  )[0];
async function provision(userName: string, extra: Json = {}, token = acmeToken) {
  const res = await scim('POST', '/Users', { schemas: [USER], userName, ...extra }, token);
  expect(res.statusCode, res.body).toBe(201);
  return res.json() as Json & { id: string };
}

/** RFC 7644 §3.3's example request body. */
const RFC_CREATE = {
  schemas: [USER],
  userName: 'bjensen',
  externalId: 'bjensen',
  name: { formatted: 'Ms. Barbara J Jensen III', familyName: 'Jensen', givenName: 'Barbara' },
};

describe('SCIM tokens', () => {
  it('refuses a missing, wrong or revoked token with 401 in the SCIM envelope and a Bearer challenge', async () => {
    for (const token of ['', 'rally_scim_wrong', 'not-even-ours']) {
      const res = await scim('GET', '/Users', undefined, token);
      expectError(res, 401);
      expect(res.headers['www-authenticate']).toMatch(/^Bearer realm=/);
    }
    const { token, secret } = await createScimToken(app.db, {
      clientId: acme,
      name: 'Old',
      defaultRole: 'grey_viewer',
      createdBy: { id: owner.id, name: 'Owner' },
    });
    expect((await scim('GET', '/Users', undefined, secret)).statusCode).toBe(200);
    const ownerBrowser = await new Browser(app).signIn('owner@example.com', PASSWORD);
    expect(
      (
        await ownerBrowser.delete(`/v1/rest/client/${acme}/scim-tokens/${token.id}`, undefined, {
          clientId: acme,
        })
      ).statusCode,
    ).toBe(204);
    expectError(await scim('GET', '/Users', undefined, secret), 401);
  });

  it('a session cookie is no way in: only the bearer token is read', async () => {
    const ownerBrowser = await new Browser(app).signIn('owner@example.com', PASSWORD);
    expectError(await ownerBrowser.get('/scim/v2/Users', { clientId: acme }), 401);
  });
});

describe('discovery (RFC 7644 §4)', () => {
  it('answers ServiceProviderConfig, ResourceTypes and Schemas as application/scim+json', async () => {
    const config = await scim('GET', '/ServiceProviderConfig');
    expect(config.statusCode).toBe(200);
    expect(config.headers['content-type']).toMatch(/^application\/scim\+json/);
    expect(config.json()).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      authenticationSchemes: [expect.objectContaining({ type: 'oauthbearertoken' })],
    });
    const types = (await scim('GET', '/ResourceTypes')).json();
    expect(types.totalResults).toBe(2);
    expect(types.Resources.map((r: Json) => r.endpoint)).toEqual(['/Users', '/Groups']);
    expect((await scim('GET', '/ResourceTypes/User')).json()).toMatchObject({ schema: USER });
    const schemas = (await scim('GET', '/Schemas')).json();
    const user = schemas.Resources.find((s: Json) => s.id === USER);
    expect(user.attributes).toContainEqual(
      expect.objectContaining({ name: 'userName', required: true, uniqueness: 'server' }),
    );
    expectError(await scim('GET', '/Schemas/urn:nope'), 404);
    expectError(await scim('GET', '/Nothing'), 404);
  });
});

describe('Users', () => {
  it("creates from RFC 7644 §3.3's example once userName is an address on a verified domain", async () => {
    // Rally signs people in by address: the RFC's bare "bjensen" is refused, naming the attribute.
    const bare = await scim('POST', '/Users', RFC_CREATE);
    expectError(bare, 400, 'invalidValue');
    expect(bare.json().detail).toMatch(/userName/);

    const res = await scim('POST', '/Users', { ...RFC_CREATE, userName: 'bjensen@example.com' });
    expect(res.statusCode).toBe(201);
    expect(res.headers['content-type']).toMatch(/^application\/scim\+json/);
    const created = res.json();
    expect(res.headers.location).toBe(`https://rally.example.net/scim/v2/Users/${created.id}`);
    expect(created).toMatchObject({
      schemas: [USER],
      userName: 'bjensen@example.com',
      externalId: 'bjensen',
      name: { givenName: 'Barbara', familyName: 'Jensen' },
      emails: [{ value: 'bjensen@example.com', primary: true }],
      active: true,
      groups: [{ value: 'yellow_sdr', display: 'SDR' }],
      meta: { resourceType: 'User', location: res.headers.location },
    });
    // An account without a password and a membership with the token's default role.
    const [account] = await app.db.select().from(users).where(eq(users.id, created.id));
    expect(account).toMatchObject({ email: 'bjensen@example.com', firstName: 'Barbara', passwordHash: null });
    expect(await membershipOf(created.id, acme)).toMatchObject({
      role: 'yellow_sdr',
      permissions: ['reports.read'],
    });
    expect((await scim('GET', `/Users/${created.id}`)).json()).toEqual(created);
  });

  it('refuses addresses outside the verified domains, duplicates (409 uniqueness) and bad bodies', async () => {
    expectError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'eve@unverified.test' }),
      400,
      'invalidValue',
    );
    expectError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'eve@globex.test' }),
      400,
      'invalidValue',
    );
    // A subdomain of a verified domain is covered.
    await provision('sub@eu.example.com', { externalId: 'sub-1' });
    expectError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'SUB@eu.example.com' }),
      409,
      'uniqueness',
    );
    expectError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'other@example.com', externalId: 'sub-1' }),
      409,
      'uniqueness',
    );
    expectError(await scim('POST', '/Users', { schemas: [USER] }), 400, 'invalidValue');
    expectError(
      await scim('POST', '/Users', { schemas: [USER], userName: 'x@example.com', active: 'maybe' }),
      400,
      'invalidValue',
    );
    expectError(await scim('POST', '/Users', '{"userName": '), 400, 'invalidSyntax');
    expectError(await scim('POST', '/Users', [1, 2]), 400, 'invalidSyntax');
  });

  it('finds users by userName (any case), externalId and active, and pages (RFC 7644 §3.4.2)', async () => {
    await provision('page-1@example.com', { externalId: 'p1' });
    await provision('page-2@example.com', { externalId: 'p2', active: false });
    await provision('page-3@example.com', { externalId: 'p3' });
    const byName = (
      await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "PAGE-1@example.com"')}`)
    ).json();
    expect(byName).toMatchObject({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: 1,
      itemsPerPage: 1,
      startIndex: 1,
    });
    expect(byName.Resources[0].externalId).toBe('p1');
    const byExternal = (
      await scim('GET', `/Users?filter=${encodeURIComponent('externalId eq "p2"')}`)
    ).json();
    expect(byExternal.Resources.map((u: Json) => u.userName)).toEqual(['page-2@example.com']);
    const inactive = (await scim('GET', `/Users?filter=${encodeURIComponent('active eq false')}`)).json();
    expect(inactive.Resources.map((u: Json) => u.userName)).toContain('page-2@example.com');
    expect(inactive.Resources.every((u: Json) => u.active === false)).toBe(true);
    const both = (
      await scim(
        'GET',
        `/Users?filter=${encodeURIComponent('userName eq "page-3@example.com" and active eq true')}`,
      )
    ).json();
    expect(both.totalResults).toBe(1);
    const none = (
      await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody@example.com"')}`)
    ).json();
    expect(none).toMatchObject({ totalResults: 0, Resources: [] });

    const all = (await scim('GET', '/Users')).json();
    const page = (await scim('GET', '/Users?startIndex=2&count=2')).json();
    expect(page).toMatchObject({ totalResults: all.totalResults, itemsPerPage: 2, startIndex: 2 });
    expect(page.Resources.map((u: Json) => u.id)).toEqual(all.Resources.slice(1, 3).map((u: Json) => u.id));
    const countOnly = (await scim('GET', '/Users?count=0')).json();
    expect(countOnly).toMatchObject({ totalResults: all.totalResults, itemsPerPage: 0, Resources: [] });

    expectError(
      await scim('GET', `/Users?filter=${encodeURIComponent('userName co "page"')}`),
      400,
      'invalidFilter',
    );
    expectError(
      await scim('GET', `/Users?filter=${encodeURIComponent('title eq "x"')}`),
      400,
      'invalidFilter',
    );
    expectError(
      await scim('GET', `/Users?filter=${encodeURIComponent('userName eq page')}`),
      400,
      'invalidFilter',
    );
    expectError(await scim('GET', '/Users?startIndex=two'), 400, 'invalidValue');
  });

  it('PUT replaces the names and externalId; userName cannot change', async () => {
    const u = await provision('put@example.com', {
      externalId: 'put-1',
      name: { givenName: 'P', familyName: 'Ut' },
    });
    const put = await scim('PUT', `/Users/${u.id}`, {
      schemas: [USER],
      userName: 'put@example.com',
      name: { givenName: 'Petra', familyName: 'Utley' },
      active: true,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({ name: { givenName: 'Petra', familyName: 'Utley' }, active: true });
    expect(put.json().externalId).toBeUndefined();
    expectError(
      await scim('PUT', `/Users/${u.id}`, { schemas: [USER], userName: 'someone-else@example.com' }),
      400,
      'mutability',
    );
  });

  it("PATCH: RFC 7644 §3.5.2's forms, Okta's and Entra's deactivation, and bad operations", async () => {
    const u = await provision('patch@example.com', { externalId: 'patch-1' });
    // §3.5.2.3: replace without a path, the value an object of attributes.
    const replaced = await scim(
      'PATCH',
      `/Users/${u.id}`,
      patch({
        op: 'replace',
        value: { name: { givenName: 'Babs', familyName: 'Jensen' }, nickName: 'Babs' },
      }),
    );
    expect(replaced.statusCode).toBe(200);
    expect(replaced.json().name).toMatchObject({ givenName: 'Babs', familyName: 'Jensen' });
    // §3.5.2.1: add with a path.
    const added = await scim(
      'PATCH',
      `/Users/${u.id}`,
      patch({ op: 'add', path: 'name.givenName', value: 'Barbara' }),
    );
    expect(added.json().name).toMatchObject({ givenName: 'Barbara', familyName: 'Jensen' });
    // §3.5.2.2: remove.
    const removed = await scim('PATCH', `/Users/${u.id}`, patch({ op: 'remove', path: 'externalId' }));
    expect(removed.json().externalId).toBeUndefined();
    // Okta deactivates so; Entra so (capitalised op, string boolean).
    const okta = await scim('PATCH', `/Users/${u.id}`, patch({ op: 'replace', value: { active: false } }));
    expect(okta.json().active).toBe(false);
    expect(await membershipOf(u.id, acme)).toBeUndefined();
    const entra = await scim(
      'PATCH',
      `/Users/${u.id}`,
      patch({ op: 'Replace', path: 'active', value: 'True' }),
    );
    expect(entra.json().active).toBe(true);
    expect(await membershipOf(u.id, acme)).toMatchObject({ role: 'yellow_sdr' });

    expectError(
      await scim('PATCH', `/Users/${u.id}`, { Operations: [{ op: 'add', path: 'x', value: 1 }] }),
      400,
      'invalidSyntax',
    );
    expectError(
      await scim('PATCH', `/Users/${u.id}`, patch({ op: 'move', path: 'active', value: true })),
      400,
      'invalidSyntax',
    );
    expectError(await scim('PATCH', `/Users/${u.id}`, patch({ op: 'remove' })), 400, 'noTarget');
    expectError(
      await scim('PATCH', `/Users/${u.id}`, patch({ op: 'remove', path: 'userName' })),
      400,
      'mutability',
    );
    expectError(
      await scim('PATCH', `/Users/${u.id}`, patch({ op: 'replace', path: 'active', value: 'soon' })),
      400,
      'invalidValue',
    );
    // All or nothing: the valid first operation of a refused request is not kept.
    await scim(
      'PATCH',
      `/Users/${u.id}`,
      patch({ op: 'replace', path: 'name.givenName', value: 'Nope' }, { op: 'remove' }),
    );
    expect((await scim('GET', `/Users/${u.id}`)).json().name.givenName).toBe('Barbara');
    expectError(
      await scim('PATCH', '/Users/not-a-uuid', patch({ op: 'replace', path: 'active', value: false })),
      404,
    );
  });

  it('deactivation ends the live session in that client at once and leaves the other clients alone', async () => {
    // A member of Acme and of their agency, signed in with their password, and an Acme SSO session.
    const person = await makeUser(
      app,
      { [agency]: 'blue_admin', [acme]: 'green_manager' },
      { email: 'dana@example.com' },
    );
    const browser = await new Browser(app).signIn('dana@example.com', PASSWORD);
    const ssoToken = randomToken();
    await app.db.insert(sessions).values({
      tokenHash: hashToken(ssoToken),
      userId: person.id,
      expiresAt: new Date(Date.now() + 86_400_000),
      scopeClientId: acme,
    });
    const sso = new Browser(app);
    sso.cookies.set(SESSION_COOKIE, ssoToken);
    const acmeDomains = `/v1/rest/client/${acme}/domains`;
    expect((await browser.get(acmeDomains, { clientId: acme })).statusCode).toBe(200);
    expect((await sso.get(acmeDomains, { clientId: acme })).statusCode).toBe(200);

    // The identity provider adopts the existing member (their role is kept), then deactivates them.
    const adopted = await provision('DANA@example.com', { externalId: 'dana' });
    expect(adopted.id).toBe(person.id);
    expect(adopted.groups).toEqual([expect.objectContaining({ value: 'green_manager' })]);
    const off = await scim(
      'PATCH',
      `/Users/${person.id}`,
      patch({ op: 'replace', path: 'active', value: false }),
    );
    expect(off.statusCode).toBe(200);

    // Their next request in Acme is refused, the SSO session is gone, the agency still works.
    expect((await browser.get(acmeDomains, { clientId: acme })).statusCode).toBe(403);
    expect((await sso.get(acmeDomains, { clientId: acme })).statusCode).toBe(401);
    expect(
      await app.db
        .select()
        .from(sessions)
        .where(eq(sessions.tokenHash, hashToken(ssoToken))),
    ).toEqual([]);
    expect((await browser.get(`/v1/rest/client/${agency}/domains`, { clientId: agency })).statusCode).toBe(
      200,
    );
    expect(await membershipOf(person.id, agency)).toMatchObject({ role: 'blue_admin' });
    const self = (await browser.get('/v1/api/user/self')).json();
    expect(self.clients.map((c: Json) => c.client_id)).toEqual([agency]);

    // Reactivated, the role they had comes back.
    await scim('PATCH', `/Users/${person.id}`, patch({ op: 'replace', path: 'active', value: true }));
    expect(await membershipOf(person.id, acme)).toMatchObject({ role: 'green_manager' });
    expect((await browser.get(acmeDomains, { clientId: acme })).statusCode).toBe(200);
  });

  it('DELETE takes the member out of this client only; a later GET is 404; the last owner stays', async () => {
    const person = await makeUser(app, { [agency]: 'yellow_sdr' }, { email: 'gone@example.com' });
    const u = await provision('gone@example.com');
    expect(await membershipOf(person.id, acme)).toMatchObject({ role: 'yellow_sdr' });
    const res = await scim('DELETE', `/Users/${u.id}`);
    expect(res.statusCode).toBe(204);
    expect(await membershipOf(person.id, acme)).toBeUndefined();
    expect(await membershipOf(person.id, agency)).toMatchObject({ role: 'yellow_sdr' });
    expect((await app.db.select().from(users).where(eq(users.id, person.id))).length).toBe(1);
    expectError(await scim('GET', `/Users/${u.id}`), 404);
    expectError(await scim('DELETE', `/Users/${u.id}`), 404);

    const ownerResource = await provision('owner@example.com');
    expectError(
      await scim(
        'PATCH',
        `/Users/${ownerResource.id}`,
        patch({ op: 'replace', path: 'active', value: false }),
      ),
      400,
      'mutability',
    );
    expect(await membershipOf(owner.id, acme)).toMatchObject({ role: 'purple_owner' });
  });

  it("a token of another client cannot see or change this client's users (404)", async () => {
    const u = await provision('private@example.com');
    expectError(await scim('GET', `/Users/${u.id}`, undefined, globexToken), 404);
    expectError(await scim('PUT', `/Users/${u.id}`, { userName: 'private@example.com' }, globexToken), 404);
    expectError(
      await scim(
        'PATCH',
        `/Users/${u.id}`,
        patch({ op: 'replace', path: 'active', value: false }),
        globexToken,
      ),
      404,
    );
    expectError(await scim('DELETE', `/Users/${u.id}`, undefined, globexToken), 404);
    const list = (
      await scim(
        'GET',
        `/Users?filter=${encodeURIComponent('userName eq "private@example.com"')}`,
        undefined,
        globexToken,
      )
    ).json();
    expect(list.totalResults).toBe(0);
    expectError(
      await scim(
        'PATCH',
        '/Groups/blue_admin',
        patch({ op: 'add', path: 'members', value: [{ value: u.id }] }),
        globexToken,
      ),
      400,
      'invalidValue',
    );
    expect((await scim('GET', `/Users/${u.id}`)).json().active).toBe(true);
    expect(await membershipOf(u.id, acme)).toMatchObject({ role: 'yellow_sdr' });
    // Nor can it provision into this client's domain.
    expectError(
      await scim('POST', '/Users', { userName: 'new@example.com' }, globexToken),
      400,
      'invalidValue',
    );
  });
});

describe('Groups are the roles', () => {
  it('lists the four roles, finds one by displayName, and leaves members out when asked', async () => {
    const all = (await scim('GET', '/Groups')).json();
    expect(all.Resources.map((g: Json) => [g.id, g.displayName])).toEqual([
      ['blue_admin', 'Admin'],
      ['green_manager', 'Manager'],
      ['yellow_sdr', 'SDR'],
      ['grey_viewer', 'Viewer'],
    ]);
    const admin = (
      await scim(
        'GET',
        `/Groups?filter=${encodeURIComponent('displayName eq "Admin"')}&excludedAttributes=members`,
      )
    ).json();
    expect(admin.Resources).toEqual([expect.not.objectContaining({ members: expect.anything() })]);
    expect(admin.totalResults).toBe(1);
    expectError(await scim('GET', '/Groups/purple_owner'), 404);
    expectError(await scim('POST', '/Groups', { displayName: 'Owners' }), 501);
  });

  it("RFC 7644 §3.5.2's member changes set the role; removal gives back the token's default", async () => {
    const u = await provision('grouped@example.com');
    // §3.5.2.1: add members.
    const added = await scim(
      'PATCH',
      '/Groups/blue_admin',
      patch({
        op: 'add',
        path: 'members',
        value: [{ display: 'Grouped', $ref: `https://x/Users/${u.id}`, value: u.id }],
      }),
    );
    expect(added.statusCode).toBe(200);
    expect(added.json().members).toContainEqual(expect.objectContaining({ value: u.id }));
    expect(await membershipOf(u.id, acme)).toMatchObject({
      role: 'blue_admin',
      permissions: expect.arrayContaining(['users.write']),
    });
    expect((await scim('GET', `/Users/${u.id}`)).json().groups).toEqual([
      expect.objectContaining({ value: 'blue_admin' }),
    ]);
    // §3.5.2.2: remove a member by value filter.
    const removed = await scim(
      'PATCH',
      '/Groups/blue_admin',
      patch({ op: 'remove', path: `members[value eq "${u.id}"]` }),
    );
    expect(removed.json().members).not.toContainEqual(expect.objectContaining({ value: u.id }));
    expect(await membershipOf(u.id, acme)).toMatchObject({ role: 'yellow_sdr' });
    // §3.5.2.3: replace the members.
    const v = await provision('grouped-2@example.com');
    await scim(
      'PATCH',
      '/Groups/green_manager',
      patch({ op: 'replace', path: 'members', value: [{ value: u.id }] }),
    );
    await scim(
      'PATCH',
      '/Groups/green_manager',
      patch({ op: 'replace', path: 'members', value: [{ value: v.id }] }),
    );
    expect(await membershipOf(u.id, acme)).toMatchObject({ role: 'yellow_sdr' });
    expect(await membershipOf(v.id, acme)).toMatchObject({ role: 'green_manager' });

    expectError(
      await scim('PATCH', '/Groups/blue_admin', patch({ op: 'replace', path: 'displayName', value: 'Gods' })),
      400,
      'mutability',
    );
    const found = (
      await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "owner@example.com"')}`)
    ).json();
    const ownerResource = found.Resources[0] ?? (await provision('owner@example.com'));
    expectError(
      await scim(
        'PATCH',
        '/Groups/grey_viewer',
        patch({ op: 'add', path: 'members', value: [{ value: ownerResource.id }] }),
      ),
      400,
      'mutability',
    );
  });
});
