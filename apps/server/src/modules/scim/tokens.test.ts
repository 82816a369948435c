import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { scimTokens } from '../../db/schema/index.ts';
import { hashToken } from '../../lib/crypto.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import { SCIM_OWNER_ONLY } from './token-routes.ts';

/** GET/POST /v1/rest/client/{id}/scim-tokens and DELETE …/{tokenId} (issue 44, decision 0029). */

const app = await createTestApp({ env: { PUBLIC_URL: 'https://rally.example.net' } });
const mine = await makeClient(app, 'Mine');
const other = await makeClient(app, 'Other');
const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
const { browser: admin } = await signedIn(app, { [mine]: 'blue_admin' });
const { browser: viewer } = await signedIn(app, { [mine]: 'grey_viewer' });
const { browser: stranger } = await signedIn(app, { [other]: 'purple_owner' });
const base = `/v1/rest/client/${mine}/scim-tokens`;
const fieldsOf = (body: { errors?: { field: string }[] }) => body.errors?.map((e) => e.field) ?? [];
const scimUsers = (secret: string) =>
  app.inject({ url: '/scim/v2/Users', headers: { authorization: `Bearer ${secret}` } });

describe('SCIM provisioning tokens', () => {
  it('an owner makes one: shown once, stored as its SHA-256 only, listed with its hint and base URL', async () => {
    const made = await owner.post(base, { name: 'Okta', default_role: 'yellow_sdr' });
    expect(made.statusCode).toBe(201);
    const { token, secret, base_url } = made.json();
    expect(secret).toMatch(/^rally_scim_[\w-]{43}$/);
    expect(base_url).toBe('https://rally.example.net/scim/v2');
    expect(token).toMatchObject({
      name: 'Okta',
      default_role: 'yellow_sdr',
      last_used_at: null,
      revoked_at: null,
    });
    expect(secret.startsWith(token.hint.replace('…', ''))).toBe(true);

    const [row] = await app.db.select().from(scimTokens).where(eq(scimTokens.id, token.id));
    expect(row?.tokenHash).toBe(hashToken(secret));
    expect(JSON.stringify(row)).not.toContain(secret);

    const list = await owner.get(base);
    expect(list.statusCode).toBe(200);
    expect(list.json().base_url).toBe('https://rally.example.net/scim/v2');
    expect(list.json().tokens).toEqual([expect.objectContaining({ id: token.id, hint: token.hint })]);
    expect(list.body).not.toContain(secret);

    // Its first use is noted.
    expect((await scimUsers(secret)).statusCode).toBe(200);
    const [used] = (await owner.get(base)).json().tokens;
    expect(used.last_used_at).not.toBeNull();
  });

  it('revoked, it stops working at once and stays listed as revoked', async () => {
    const { token, secret } = (await owner.post(base, { name: 'Entra', default_role: 'grey_viewer' })).json();
    expect((await scimUsers(secret)).statusCode).toBe(200);
    expect((await owner.delete(`${base}/${token.id}`)).statusCode).toBe(204);
    const refused = await scimUsers(secret);
    expect(refused.statusCode).toBe(401);
    expect(refused.json()).toMatchObject({ status: '401' });
    const listed = (await owner.get(base)).json().tokens.find((t: { id: string }) => t.id === token.id);
    expect(listed.revoked_at).not.toBeNull();
    // Revoking again is not an error.
    expect((await owner.delete(`${base}/${token.id}`)).statusCode).toBe(204);
  });

  it('bad input is 422 naming the field; ownership cannot be the default role', async () => {
    const bad = await owner.post(base, { name: ' ', default_role: 'purple_owner' });
    expect(bad.statusCode).toBe(422);
    expect(fieldsOf(bad.json())).toEqual(expect.arrayContaining(['body.name', 'body.default_role']));
    const badId = await owner.delete(`${base}/not-a-uuid`);
    expect(badId.statusCode).toBe(422);
    expect(fieldsOf(badId.json())).toContain('params.id');
  });

  it('admins read the list but only owners make or revoke; viewers see nothing', async () => {
    const { token } = (await owner.post(base, { name: 'Kept', default_role: 'grey_viewer' })).json();
    expect((await admin.get(base)).statusCode).toBe(200);
    const made = await admin.post(base, { name: 'Mine now', default_role: 'blue_admin' });
    expect(made.statusCode).toBe(403);
    expect(made.json().message).toBe(SCIM_OWNER_ONLY);
    expect((await admin.delete(`${base}/${token.id}`)).statusCode).toBe(403);
    expect((await viewer.get(base)).statusCode).toBe(403);
    expect((await viewer.post(base, { name: 'x', default_role: 'grey_viewer' })).statusCode).toBe(403);
  });

  it("another client's token is not found, and another client's owner cannot reach these", async () => {
    const theirs = (
      await stranger.post(`/v1/rest/client/${other}/scim-tokens`, {
        name: 'Theirs',
        default_role: 'grey_viewer',
      })
    ).json();
    const foreign = await owner.delete(`${base}/${theirs.token.id}`);
    expect(foreign.statusCode).toBe(404);
    expect((await owner.get(base)).json().tokens.map((t: { id: string }) => t.id)).not.toContain(
      theirs.token.id,
    );
    expect((await scimUsers(theirs.secret)).statusCode).toBe(200);
    expect((await stranger.get(base, { clientId: mine })).statusCode).toBe(403);
    expect((await stranger.get(base)).statusCode).toBe(403);
  });
});
