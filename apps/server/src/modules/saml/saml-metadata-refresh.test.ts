import { and, eq } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLog, samlConfigs } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeUser } from '../../../test/http.ts';
import { freePort } from '../../../test/free-port.ts';
import { startFakeDns } from '../../../test/fakes/dns.ts';
import { samlFlow } from '../../../test/saml-flow.ts';
import { makeKeyPair, startSamlIdp } from '../../../test/saml-idp.ts';
import { refreshSamlMetadata } from './metadata-refresh.ts';

/**
 * Issue 44, certificate rotation without an owner: the daily job fetches a metadata URL again
 * (through the guarded fetcher), takes a new signing certificate beside the old one, drops the old
 * when the IdP stops listing it, audits each change, and on a failure keeps the last good metadata
 * and shows the error in the settings.
 */

const dns = await startFakeDns({});
const idp = await startSamlIdp();
const port = await freePort();
const appUrl = `http://127.0.0.1:${port}`;
const app = await createTestApp({ env: { PUBLIC_URL: appUrl, DNS_SERVERS: dns.server } });
await app.listen({ port, host: '127.0.0.1' });
afterAll(async () => {
  await app.close();
  await Promise.all([idp.close(), dns.close()]);
});
const { samlClient, signIn } = samlFlow(app, appUrl, dns);
const original = idp.metadata;
const b64 = (pem: string) => pem.replace(/-----[A-Z ]+-----|\s/g, '');
/** The IdP's metadata listing these signing certificates (Okta and Entra list both during a rollover). */
const listing = (...certs: string[]) =>
  original.replace(
    /<KeyDescriptor use="signing">[\s\S]*?<\/KeyDescriptor>/,
    certs
      .map(
        (c) =>
          `<KeyDescriptor use="signing"><ds:KeyInfo xmlns:ds="http://www.w3.org/2000/09/xmldsig#"><ds:X509Data><ds:X509Certificate>${b64(c)}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></KeyDescriptor>`,
      )
      .join(''),
  );
const audits = (clientId: string) =>
  app.db
    .select()
    .from(auditLog)
    .where(and(eq(auditLog.clientId, clientId), eq(auditLog.action, 'sso.metadata_refreshed')));

describe('daily SAML metadata refresh', () => {
  it('takes a rotated certificate beside the old, drops the old once unlisted, audits changes, keeps the last good metadata on failure', async () => {
    expect(original).toMatch(/<KeyDescriptor use="signing">/);
    const a = await samlClient(idp, { metadata_xml: null, metadata_url: idp.entityId });
    // Pasted metadata is not re-fetched.
    const pasted = await samlClient(idp);
    await makeUser(app, { [a.clientId]: 'yellow_sdr' }, { email: `ann@${a.domain}` });
    const who = { nameId: 'ann', attributes: { email: `ann@${a.domain}` } };
    const next = makeKeyPair('Rotated IdP key');
    expect((await signIn(idp, a.clientId, { ...who, keyPair: next })).location).toContain(
      'assertion_invalid',
    );

    try {
      // Nothing changed: checked, no audit entry.
      await refreshSamlMetadata(app.db, true);
      expect(await audits(a.clientId)).toEqual([]);

      idp.metadata = listing(idp.keyPair.cert, next.cert);
      await refreshSamlMetadata(app.db, true);
      let settings = (await a.owner.get(`/v1/rest/client/${a.clientId}/saml`)).json();
      expect(settings.certificates).toHaveLength(2);
      expect(settings.metadata_error).toBeNull();
      expect(Date.parse(settings.metadata_fetched_at)).toBeGreaterThan(Date.now() - 60_000);
      expect((await signIn(idp, a.clientId, { ...who, keyPair: next })).location).toBe('/auth/callback');
      expect((await signIn(idp, a.clientId, who)).location).toBe('/auth/callback');
      const [added] = await audits(a.clientId);
      expect(added?.details).toMatchObject({
        protocol: 'saml',
        fields: ['certificates'],
        certificates_added: [settings.certificates[1].fingerprint],
        certificates_removed: [],
      });

      idp.metadata = listing(next.cert);
      await refreshSamlMetadata(app.db, true);
      settings = (await a.owner.get(`/v1/rest/client/${a.clientId}/saml`)).json();
      expect(settings.certificates).toHaveLength(1);
      expect((await signIn(idp, a.clientId, who)).location).toContain('assertion_invalid');
      expect(await audits(a.clientId)).toHaveLength(2);

      // A failure: the last good metadata stays, the error is shown.
      const fetchedAt = settings.metadata_fetched_at;
      idp.metadata = '<not metadata';
      const totals = await refreshSamlMetadata(app.db, true);
      expect(totals.failed).toBeGreaterThanOrEqual(1);
      settings = (await a.owner.get(`/v1/rest/client/${a.clientId}/saml`)).json();
      expect(settings.metadata_error).toBe('the metadata there is not well-formed XML');
      expect(settings.metadata_fetched_at).toBe(fetchedAt);
      expect(Date.parse(settings.metadata_checked_at)).toBeGreaterThan(Date.parse(fetchedAt));
      expect(settings.certificates).toHaveLength(1);
      expect((await signIn(idp, a.clientId, { ...who, keyPair: next })).location).toBe('/auth/callback');

      // Through the guard: without private addresses allowed, loopback is refused, nothing changes.
      idp.metadata = listing(idp.keyPair.cert);
      await refreshSamlMetadata(app.db, false);
      const [row] = await app.db.select().from(samlConfigs).where(eq(samlConfigs.clientId, a.clientId));
      expect(row!.certificates).toHaveLength(1);
      expect(row!.metadataError).toBeTruthy();
      const [untouched] = await app.db
        .select()
        .from(samlConfigs)
        .where(eq(samlConfigs.clientId, pasted.clientId));
      expect(untouched!.metadataCheckedAt).toBeNull();
    } finally {
      idp.metadata = original;
    }
    // Eight sign-ins and four refreshes: minutes on a loaded machine.
  }, 300_000);
});
