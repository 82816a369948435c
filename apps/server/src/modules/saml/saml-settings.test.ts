import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import type { SamlSettingsBody } from '@rally/shared/schemas/saml';
import { emailOutbox } from '../../db/schema/index.ts';
import { SSO_OWNER_ONLY } from '../oauth/sso-settings-routes.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, makeClient, makeUser, signedIn } from '../../../test/http.ts';
import { startSamlIdp } from '../../../test/saml-idp.ts';

/**
 * Issue 44: per-client SAML settings — "metadata by URL or XML, certificate rotation, NameID and
 * attribute mapping, just-in-time membership with a chosen default role (off by default);
 * IdP-initiated off unless the owner turns it on" — owners only (issue 37.1), and "every member
 * told by e-mail when SSO is turned on or its issuer changes".
 */

const idp = await startSamlIdp();
const app = await createTestApp({ env: { PUBLIC_URL: 'http://rally.test' } });
afterAll(async () => {
  await app.close();
  await idp.close();
});

const body = (over: Partial<SamlSettingsBody> = {}): SamlSettingsBody => ({
  enabled: true,
  metadata_xml: idp.metadata,
  name_id_format: 'urn:oasis:names:tc:SAML:2.0:nameid-format:persistent',
  jit_enabled: false,
  jit_role: 'grey_viewer',
  idp_initiated: false,
  ...over,
});

async function setup() {
  const clientId = await makeClient(app);
  const { browser: owner, user } = await signedIn(app, { [clientId]: 'purple_owner' });
  return { clientId, owner, ownerEmail: user.email, url: `/v1/rest/client/${clientId}/saml` };
}

describe('SAML settings', () => {
  it('404 before set-up; an owner sets them from pasted metadata and gets what to give the IdP; members are mailed', async () => {
    const { clientId, owner, url } = await setup();
    const member = await makeUser(app, { [clientId]: 'yellow_sdr' });
    expect((await owner.get(url)).statusCode).toBe(404);
    const res = await owner.put(url, body({ first_name_attribute: 'givenName', last_name_attribute: ' ' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({
      enabled: true,
      idp_entity_id: idp.entityId,
      sso_url: idp.ssoUrl,
      metadata_url: null,
      first_name_attribute: 'givenName',
      last_name_attribute: null,
      jit_enabled: false,
      idp_initiated: false,
      sp_entity_id: `http://rally.test/v1/api/auth/saml/${clientId}/metadata`,
      acs_url: `http://rally.test/v1/api/auth/saml/${clientId}/acs`,
    });
    expect(res.json().certificates).toHaveLength(1);
    expect(res.json().certificates[0].fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect((await owner.get(url)).json()).toEqual(res.json());
    const mails = await app.db
      .select()
      .from(emailOutbox)
      .where(and(eq(emailOutbox.toAddress, member.email), eq(emailOutbox.clientId, clientId)));
    expect(mails.map((m) => m.subject)).toEqual([expect.stringMatching(/^Single sign-on was turned on for/)]);
    // Saving again without a change mails no one again.
    await owner.put(url, body({ jit_enabled: true }));
    expect(
      await app.db.select().from(emailOutbox).where(eq(emailOutbox.toAddress, member.email)),
    ).toHaveLength(1);
  });

  it('fetches metadata from a URL (through the guarded fetcher) and takes certificates entered by hand', async () => {
    const { url, owner } = await setup();
    const byUrl = await owner.put(url, body({ metadata_xml: null, metadata_url: `${idp.entityId}` }));
    expect(byUrl.statusCode, byUrl.body).toBe(200);
    expect(byUrl.json()).toMatchObject({ idp_entity_id: idp.entityId, metadata_url: idp.entityId });
    const base64 = idp.keyPair.cert.replace(/-----[A-Z ]+-----|\s/g, '');
    const byHand = await owner.put(
      url,
      body({
        metadata_xml: null,
        idp_entity_id: 'https://idp.example/new',
        sso_url: 'https://idp.example/sso',
        certificates: [base64, idp.keyPair.cert],
      }),
    );
    expect(byHand.statusCode, byHand.body).toBe(200);
    // The same certificate twice is two entries: the owner sees both fingerprints.
    expect(byHand.json().certificates).toHaveLength(2);
  });

  it('saved again by hand with the certificates box empty keeps the certificates on file for the same provider only', async () => {
    const { url, owner } = await setup();
    const first = await owner.put(url, body());
    expect(first.statusCode, first.body).toBe(200);
    const onFile = first.json().certificates;
    expect(onFile).toHaveLength(1);
    // What the settings screen sends once saved: the fields by hand, no certificate pasted.
    const byHand = {
      metadata_xml: null,
      idp_entity_id: idp.entityId,
      sso_url: idp.ssoUrl,
      certificates: [],
      jit_enabled: true,
    };
    const again = await owner.put(url, body(byHand));
    expect(again.statusCode, again.body).toBe(200);
    expect(again.json()).toMatchObject({
      certificates: onFile,
      jit_enabled: true,
      idp_entity_id: idp.entityId,
    });
    const other = await owner.put(url, body({ ...byHand, idp_entity_id: 'https://idp.example/other' }));
    expect(other.statusCode).toBe(422);
    expect(other.json().errors[0].field).toBe('body.certificates');
    expect((await owner.get(url)).json().idp_entity_id).toBe(idp.entityId);
  });

  it('answers 422 naming the field', async () => {
    const { url, owner } = await setup();
    const cases: [Partial<SamlSettingsBody> | Record<string, unknown>, string][] = [
      [{ name_id_format: 'urn:x' }, 'body.name_id_format'],
      [{ jit_role: 'purple_owner' }, 'body.jit_role'],
      [{ metadata_xml: '<nope' }, 'body.metadata_xml'],
      [
        {
          metadata_xml:
            '<?xml version="1.0"?><EntityDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata" entityID="x"/>',
        },
        'body.metadata_xml',
      ],
      [{ metadata_xml: null, metadata_url: 'ftp://x' }, 'body.metadata_url'],
      [{ metadata_xml: null, metadata_url: `${idp.ssoUrl}-missing` }, 'body.metadata_url'],
      [{ metadata_xml: null }, 'body.idp_entity_id'],
      [{ metadata_xml: null, idp_entity_id: 'x' }, 'body.sso_url'],
      [{ metadata_xml: null, idp_entity_id: 'x', sso_url: 'https://idp.example/sso' }, 'body.certificates'],
      [
        {
          metadata_xml: null,
          idp_entity_id: 'x',
          sso_url: 'https://idp.example/sso',
          certificates: ['not a cert'],
        },
        'body.certificates.0',
      ],
      [{ enabled: 'yes' }, 'body.enabled'],
    ];
    for (const [over, field] of cases) {
      const res = await owner.put(url, body(over as Partial<SamlSettingsBody>));
      expect(res.statusCode, field).toBe(422);
      expect(res.json().errors[0].field, JSON.stringify(over)).toBe(field);
    }
    const badId = await owner.get('/v1/rest/client/nope/saml', { clientId: null });
    expect(badId.statusCode).toBeGreaterThanOrEqual(400);
    expect(badId.statusCode).toBeLessThan(500);
  });

  it('is refused to an admin for changes (403), a manager (403), another client (403), without a session (401)', async () => {
    const { clientId, owner, url } = await setup();
    expect((await owner.put(url, body())).statusCode).toBe(200);
    const { browser: admin } = await signedIn(app, { [clientId]: 'blue_admin' });
    expect((await admin.get(url)).statusCode).toBe(200);
    const put = await admin.put(url, body());
    expect(put.statusCode).toBe(403);
    expect(put.json()).toEqual({ message: SSO_OWNER_ONLY });
    const { browser: manager } = await signedIn(app, { [clientId]: 'green_manager' });
    expect((await manager.get(url)).statusCode).toBe(403);
    expect((await manager.put(url, body())).statusCode).toBe(403);
    const other = await setup();
    const foreign = await other.owner.get(url, { clientId });
    expect(foreign.statusCode).toBe(403);
    const foreignPut = await other.owner.put(url, body(), { clientId });
    expect(foreignPut.statusCode).toBe(403);
    expect((await new Browser(app).get(url, { clientId })).statusCode).toBe(401);
  });
});
