import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { AuditEntry, AuditListReply, AuditVerifyReply } from '@rally/shared/schemas/audit';
import { auditLog } from '../../db/schema/index.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { Browser, PASSWORD, makeClient, makeUser, signedIn } from '../../../test/http.ts';
import { cleanDetails, recordAudit } from './record.ts';
import { purgeAudit, verifyAudit } from './repository.ts';
import { AUDIT_OWNER_ONLY } from './routes.ts';

const UA = 'AuditTest/1.0 (checking the log)';

/**
 * The audit log (issue 44): an append-only, hash-chained record per client, read by owners through
 * the list, one entry, its CSV and the chain's verification.
 */
describe('audit log', async () => {
  const app = await createTestApp({ workers: false });
  const clientId = await makeClient(app, 'Auditco');
  const other = await makeClient(app, 'Otherco');
  const { browser: owner, user: ownerUser } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: admin } = await signedIn(app, { [clientId]: 'blue_admin' });
  const { browser: viewer } = await signedIn(app, { [clientId]: 'grey_viewer' });
  const { browser: otherOwner } = await signedIn(app, { [other]: 'purple_owner' });
  const base = `/v1/rest/client/${clientId}/audit_log`;

  const list = async (query = '', who: Browser = owner) => {
    const res = await who.get(`${base}${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as AuditListReply;
  };

  it('records a sign-in in each client of the user, with who, how and from where, and no secrets', async () => {
    const second = await makeClient(app, 'Second');
    const member = await makeUser(
      app,
      { [clientId]: 'green_manager', [second]: 'yellow_sdr' },
      { email: 'signin-audit@example.com' },
    );
    const b = new Browser(app);
    const res = await b.post(
      '/v1/api/auth',
      { email: member.email, password: PASSWORD },
      { headers: { 'user-agent': UA } },
    );
    expect(res.statusCode, res.body).toBe(200);
    for (const c of [clientId, second]) {
      const { items } = await verifyAndList(c, member.id);
      const entry = items.find((e) => e.action === 'auth.sign_in');
      expect(entry, c).toMatchObject({
        actor_user_id: member.id,
        actor_email: 'signin-audit@example.com',
        target_kind: 'user',
        target_id: member.id,
        details: { method: 'password' },
        user_agent: UA,
      });
      expect(entry!.ip).toMatch(/\d/);
      expect(JSON.stringify(items)).not.toContain(PASSWORD);
    }
    // A wrong password for a known account is on its clients' records; an unknown address nowhere.
    const wrong = await new Browser(app).post('/v1/api/auth', {
      email: member.email,
      password: 'wrong-password',
    });
    expect(wrong.statusCode).toBe(400);
    const failed = (await verifyAndList(clientId, member.id)).items.find(
      (e) => e.action === 'auth.sign_in_failed',
    );
    expect(failed).toMatchObject({ actor_email: member.email, details: { reason: 'wrong_password' } });
    expect(JSON.stringify(failed)).not.toContain('wrong-password');
  });

  async function verifyAndList(c: string, actor: string): Promise<AuditListReply> {
    const entries = await app.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.clientId} = ${c} and ${auditLog.actorUserId} = ${actor}`);
    expect((await verifyAudit(app.db, c)).ok).toBe(true);
    return {
      items: entries
        .sort((a, b) => b.seq - a.seq)
        .map((r) => ({
          id: r.id,
          seq: r.seq,
          created_at: r.createdAt.toISOString(),
          actor_user_id: r.actorUserId,
          actor_email: r.actorEmail,
          action: r.action as AuditEntry['action'],
          target_kind: r.targetKind,
          target_id: r.targetId,
          details: r.details,
          ip: r.ip,
          user_agent: r.userAgent,
          hash: r.hash,
        })),
      next_cursor: null,
    };
  }

  it('records a settings change with the names of the fields changed, never their values', async () => {
    const res = await owner.put(`/v1/rest/client/${clientId}/settings`, {
      website_url: 'https://auditco.example.com',
      landing_button_name: 'Book a call',
    });
    expect(res.statusCode, res.body).toBe(200);
    const { items } = await list('?action=settings.changed');
    expect(items[0]).toMatchObject({
      action: 'settings.changed',
      actor_user_id: ownerUser.id,
      actor_email: ownerUser.email,
      target_kind: 'client_settings',
      target_id: clientId,
      details: { fields: ['landing_button_name', 'website_url'] },
    });
    expect(JSON.stringify(items[0])).not.toContain('auditco.example.com');
    // Saving the same values again changes nothing and records nothing.
    await owner.put(`/v1/rest/client/${clientId}/settings`, { website_url: 'https://auditco.example.com' });
    expect((await list('?action=settings.changed')).items).toHaveLength(1);
  });

  it('records role changes and invitations, with the owner as actor', async () => {
    const member = await makeUser(app, { [clientId]: 'yellow_sdr' });
    const role = await owner.patch(`/v1/rest/client/${clientId}/user/${member.id}`, {
      role: 'green_manager',
    });
    expect(role.statusCode, role.body).toBe(200);
    expect((await list('?action=member.role_changed')).items[0]).toMatchObject({
      actor_email: ownerUser.email,
      target_kind: 'user',
      target_id: member.id,
      details: { from: 'yellow_sdr', to: 'green_manager' },
    });
    const invite = await owner.post('/v1/rest/user_request', {
      email: 'invitee@example.com',
      role: 'grey_viewer',
    });
    expect(invite.statusCode, invite.body).toBe(201);
    const sent = (await list('?action=invitation.sent')).items[0];
    expect(sent).toMatchObject({ target_id: invite.json().id, details: { email: 'invitee@example.com' } });
  });

  it('keeps secrets out of details, at any depth', () => {
    expect(
      cleanDetails({
        fields: ['client_secret'],
        client_secret: 's3cret',
        nested: { access_token: 't', api_key: 'k', password: 'p', name: 'kept' },
      }),
    ).toEqual({ fields: ['client_secret'], nested: { name: 'kept' } });
  });

  it('lists newest first with filters and cursor paging', async () => {
    for (let i = 0; i < 5; i++) {
      await recordAudit(app.db, {
        clientId,
        action: 'export.requested',
        actor: { id: ownerUser.id, email: ownerUser.email },
        target: { kind: 'export_file', id: `file-${i}` },
      });
    }
    const first = await list('?action=export.requested&limit=2');
    expect(first.items.map((e) => e.target_id)).toEqual(['file-4', 'file-3']);
    expect(first.next_cursor).toBe(first.items[1]!.seq);
    const second = await list(`?action=export.requested&limit=2&cursor=${first.next_cursor}`);
    expect(second.items.map((e) => e.target_id)).toEqual(['file-2', 'file-1']);
    const last = await list(`?action=export.requested&limit=2&cursor=${second.next_cursor}`);
    expect(last.items.map((e) => e.target_id)).toEqual(['file-0']);
    expect(last.next_cursor).toBeNull();

    expect((await list('?target_kind=export_file&target_id=file-2')).items).toHaveLength(1);
    expect((await list(`?actor=${ownerUser.id}&action=export.requested`)).items).toHaveLength(5);
    const today = new Date().toISOString().slice(0, 10);
    expect((await list(`?from=${today}&to=${today}&action=export.requested`)).items).toHaveLength(5);
    expect((await list('?to=2000-01-01')).items).toHaveLength(0);
  });

  it('reads one entry; an entry of another client is 404', async () => {
    const [mine] = (await list('?limit=1')).items;
    const one = await owner.get(`${base}/${mine!.id}`);
    expect(one.statusCode).toBe(200);
    expect(one.json()).toEqual(mine);
    const theirs = await recordAudit(app.db, { clientId: other, action: 'settings.changed' });
    const res = await owner.get(`${base}/${theirs.id}`);
    expect(res.statusCode).toBe(404);
  });

  it('exports CSV through the formula-safe helper, and records the export', async () => {
    await recordAudit(app.db, {
      clientId,
      action: 'shared_link.revoked',
      actor: { id: ownerUser.id, email: ownerUser.email },
      target: { kind: 'embedded_report', id: '=HYPERLINK("http://evil")' },
    });
    const res = await owner.get(`${base}/export?action=shared_link.revoked`);
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toContain('text/csv');
    expect(res.headers['content-disposition']).toMatch(/attachment; filename="audit-log-/);
    const lines = res.body.trim().split('\r\n');
    expect(lines[0]).toContain('Seq,Time (UTC),Actor e-mail');
    expect(lines).toHaveLength(2);
    expect(res.body).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect((await list('?action=audit.exported')).items[0]).toMatchObject({
      details: { filters: { action: 'shared_link.revoked' } },
    });
  });

  it('refuses bad input with 422 naming the field', async () => {
    const cases: [string, string][] = [
      ['?action=not.an.action', 'querystring.action'],
      ['?from=yesterday', 'querystring.from'],
      ['?from=2026-02-01&to=2026-01-01', 'querystring.to'],
      ['?actor=nobody', 'querystring.actor'],
      ['?cursor=0', 'querystring.cursor'],
      ['?limit=1000', 'querystring.limit'],
      ['/not-a-uuid', 'params.id'],
      ['/export?to=31-12-2026', 'querystring.to'],
    ];
    for (const [q, field] of cases) {
      const res = await owner.get(`${base}${q}`);
      expect(res.statusCode, q).toBe(422);
      expect(res.json().message, q).toContain(field);
    }
  });

  it('is for owners only: an admin and a viewer are refused 403, another client 403', async () => {
    for (const path of ['', '/verify', '/export']) {
      const byAdmin = await admin.get(`${base}${path}`);
      expect(byAdmin.statusCode, path).toBe(403);
      expect(byAdmin.json().message).toBe(AUDIT_OWNER_ONLY);
      expect((await viewer.get(`${base}${path}`)).statusCode, path).toBe(403);
      expect((await otherOwner.get(`${base}${path}`)).statusCode, path).toBe(403);
    }
    expect((await new Browser(app).get(base, { clientId })).statusCode).toBe(401);
  });

  it('verifies the chain, and finds an entry changed behind the trigger at that entry', async () => {
    const ok = await owner.get(`${base}/verify`);
    expect(ok.statusCode).toBe(200);
    const good = ok.json() as AuditVerifyReply;
    expect(good).toMatchObject({ ok: true, first_broken: null, anchor_seq: 0 });
    expect(good.checked).toBeGreaterThan(5);

    const c = await makeClient(app, 'Tampered');
    const ids: string[] = [];
    for (let i = 0; i < 6; i++)
      ids.push(
        (
          await recordAudit(app.db, {
            clientId: c,
            action: 'settings.changed',
            details: { fields: [`f${i}`] },
          })
        ).id,
      );
    // The trigger refuses a change and a delete.
    await expect(
      app.db.execute(sql`update audit_log set action = 'auth.sign_in' where id = ${ids[3]!}`),
    ).rejects.toThrow();
    await expect(app.db.execute(sql`delete from audit_log where id = ${ids[3]!}`)).rejects.toThrow();
    await expect(app.db.execute(sql`truncate audit_log`)).rejects.toThrow();
    expect((await verifyAudit(app.db, c)).ok).toBe(true);
    // Someone with the database's owner rights goes around it, in one transaction.
    await app.db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_log disable trigger audit_log_append_only`);
      await tx.execute(
        sql`update audit_log set details = '{"fields":["nothing"]}'::jsonb where id = ${ids[3]!}`,
      );
      await tx.execute(sql`alter table audit_log enable trigger audit_log_append_only`);
    });
    const bad = await verifyAudit(app.db, c);
    expect(bad.ok).toBe(false);
    expect(bad.checked).toBe(3);
    expect(bad.first_broken).toMatchObject({
      id: ids[3],
      seq: 4,
      reason: 'its content does not match its hash',
    });

    // A deleted entry in the middle is found at the entry after it.
    await app.db.transaction(async (tx) => {
      await tx.execute(sql`alter table audit_log disable trigger audit_log_append_only`);
      await tx.execute(sql`delete from audit_log where id = ${ids[1]!}`);
      await tx.execute(sql`alter table audit_log enable trigger audit_log_append_only`);
    });
    expect((await verifyAudit(app.db, c)).first_broken).toMatchObject({ id: ids[2], seq: 3 });
  });

  it('keeps one unbroken chain under 50 appends side by side', async () => {
    const c = await makeClient(app, 'Busy');
    const { browser: busyOwner } = await signedIn(app, { [c]: 'purple_owner' });
    const started = performance.now();
    const done = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        recordAudit(app.db, {
          clientId: c,
          action: 'export.requested',
          target: { kind: 'export_file', id: i },
        }),
      ),
    );
    // A figure for the note, not an assertion.
    console.info(
      `audit log: 50 concurrent appends at ${Math.round(50_000 / (performance.now() - started))} entries/s`,
    );
    const seqs = done.map((d) => d.seq).sort((a, b) => a - b);
    expect(new Set(seqs).size).toBe(50);
    const res = await busyOwner.get(`/v1/rest/client/${c}/audit_log/verify`, { clientId: c });
    expect(res.statusCode).toBe(200);
    // The owner's own sign-in is the first entry.
    expect(res.json()).toMatchObject({ ok: true, checked: 51, first_broken: null });
  }, 60_000);

  it('drops entries older than the retention limit and still verifies from the anchor', async () => {
    const c = await makeClient(app, 'Retained');
    for (let i = 0; i < 4; i++) await recordAudit(app.db, { clientId: c, action: 'settings.changed' });
    const old = await app.db
      .select()
      .from(auditLog)
      .where(sql`${auditLog.clientId} = ${c}`);
    const cut = new Date(Math.max(...old.map((r) => r.createdAt.getTime())) + 1);
    while (Date.now() <= cut.getTime()) await new Promise((r) => setTimeout(r, 2));
    for (let i = 0; i < 3; i++) await recordAudit(app.db, { clientId: c, action: 'billing.changed' });
    // Outside the purge the trigger still refuses deletes.
    await expect(
      app.db.execute(sql`delete from audit_log where client_id = ${c} and seq = 1`),
    ).rejects.toThrow();
    expect(await purgeAudit(app.db, c, cut)).toBe(4);
    expect(await purgeAudit(app.db, c, cut)).toBe(0);
    const after = await verifyAudit(app.db, c);
    expect(after).toMatchObject({ ok: true, checked: 3, anchor_seq: 4 });
    expect(after.anchor_hash).toBe(old.find((r) => r.seq === 4)!.hash);
  });
});
