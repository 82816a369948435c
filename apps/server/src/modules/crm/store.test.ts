import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { crmAccounts, crmContacts, crmListMembers, crmLists, integrations } from '../../db/schema/index.ts';
import { postgresCodeOf } from '../../lib/errors.ts';
import { createTestApp } from '../../../test/helpers.ts';
import { makeClient } from '../../../test/http.ts';
import { arrayLiteral, upsertAccounts, upsertContacts, upsertListMembers, upsertLists } from './store.ts';
import type { RemoteContact } from './port.ts';

const contact = (externalId: string, over: Partial<RemoteContact> = {}): RemoteContact => ({
  externalId,
  email: `${externalId}@example.com`,
  firstName: 'F',
  lastName: 'L',
  title: 'T',
  accountExternalId: null,
  ownerExternalId: null,
  updatedAt: '2026-12-01T10:00:00.000Z',
  ...over,
});

describe('CRM store: batches as arrays, the integration and list keys per statement (issue 43)', async () => {
  const app = await createTestApp({ workers: false });
  let clients = 0;
  let clientId = '';
  /** A client of its own (one Salesforce connection a client) and its integration. */
  const newIntegration = async () => {
    clientId = await makeClient(app, `Store ${++clients}`);
    return (await app.db.insert(integrations).values({ clientId, source: 'salesforce' }).returning())[0]!;
  };

  it('writes array literals that read back as the values given', async () => {
    expect(arrayLiteral(['a', null, '', 'b"c\\d', true, false, undefined])).toBe(
      '{"a",NULL,"","b\\"c\\\\d",t,f,NULL}',
    );
    const odd = [
      '{',
      '}',
      ',',
      ' x ',
      'NULL',
      'null',
      '"',
      '\\',
      'a"b\\"c',
      'é ü 漢 🙂',
      'tab\there',
      'line\nbreak',
      '',
    ];
    const result = await app.db.execute(sql`select ${arrayLiteral(odd)}::text::text[] as v`);
    const [row] = (result as unknown as { rows: { v: string[] }[] }).rows;
    expect(row!.v).toEqual(odd);
  });

  it('stores contacts and members with any text as given, nulls as null', async () => {
    const integration = await newIntegration();
    const ref = { id: integration.id, clientId };
    const odd = 'Quote " back \\ brace {x,y} NULL 漢 🙂';
    await app.db.transaction((tx) =>
      upsertContacts(tx, ref, [
        contact('003A', { firstName: odd, title: '', lastName: 'NULL' }),
        contact('003B', { email: null, isDeleted: true, title: 'lone \ud800 half' }),
      ]),
    );
    const rows = await app.db
      .select()
      .from(crmContacts)
      .where(eq(crmContacts.integrationId, integration.id))
      .orderBy(crmContacts.externalId);
    expect(rows.map((r) => [r.externalId, r.email, r.firstName, r.lastName, r.title, r.isDeleted])).toEqual([
      ['003A', '003A@example.com', odd, 'NULL', '', false],
      ['003B', null, 'F', 'L', 'lone \ufffd half', true],
    ]);
    expect(rows[0]!.crmUpdatedAt?.toISOString()).toBe('2026-12-01T10:00:00.000Z');

    const lists = await app.db.transaction((tx) =>
      upsertLists(tx, ref, [
        {
          externalId: '701A',
          name: 'Campaign',
          kind: 'campaign',
          memberType: 'contact',
          memberCount: 2,
          isActive: true,
          updatedAt: null,
        },
      ]),
    );
    const listId = lists.get('701A')!;
    await app.db.transaction((tx) =>
      upsertListMembers(
        tx,
        ref,
        listId,
        [
          { memberExternalId: '003A', status: 'Sent "x"', addedAt: '2026-12-02T00:00:00.000Z' },
          { memberExternalId: '00QZ', status: '', addedAt: null },
        ],
        'contact',
      ),
    );
    const members = await app.db
      .select()
      .from(crmListMembers)
      .where(eq(crmListMembers.listId, listId))
      .orderBy(crmListMembers.memberExternalId);
    expect(
      members.map((m) => [m.memberExternalId, m.contactId, m.status, m.addedAt?.toISOString() ?? null]),
    ).toEqual([
      ['003A', rows[0]!.id, 'Sent "x"', '2026-12-02T00:00:00.000Z'],
      ['00QZ', null, '', null],
    ]);
  });

  it("leaves a list's unchanged members as they are when the list is stored again, and rewrites the changed", async () => {
    const integration = await newIntegration();
    const ref = { id: integration.id, clientId };
    await app.db.transaction((tx) => upsertContacts(tx, ref, [contact('003A'), contact('003B')]));
    const lists = await app.db.transaction((tx) =>
      upsertLists(tx, ref, [
        {
          externalId: '701R',
          name: 'Re-read',
          kind: 'campaign',
          memberType: 'contact',
          memberCount: 3,
          isActive: true,
          updatedAt: null,
        },
      ]),
    );
    const listId = lists.get('701R')!;
    const members = [
      { memberExternalId: '003A', status: 'Sent', addedAt: '2026-12-02T00:00:00.000Z' },
      { memberExternalId: '003B', status: 'Sent', addedAt: null },
      { memberExternalId: '00QZ', status: '', addedAt: null },
    ];
    const store = (items: typeof members) =>
      app.db.transaction((tx) => upsertListMembers(tx, ref, listId, items, 'contact'));
    // A row's version: xmin changes when the row is rewritten, not when it is only locked.
    const versions = async () => {
      const result = await app.db.execute(
        sql`select member_external_id as id, xmin::text as v, status from crm_list_members
             where list_id = ${listId} order by member_external_id`,
      );
      return (result as unknown as { rows: { id: string; v: string; status: string }[] }).rows;
    };
    await store(members);
    const first = await versions();
    expect(first.map((r) => r.id)).toEqual(['003A', '003B', '00QZ']);

    await store(members); // the same list read again
    expect(await versions()).toEqual(first);

    // One member's status moved, one gained an added date: those two are rewritten, the third is not.
    await store([
      { ...members[0]!, status: 'Responded' },
      { ...members[1]!, addedAt: '2026-12-03T00:00:00.000Z' },
      members[2]!,
    ]);
    const third = await versions();
    expect(third.map((r) => [r.id, r.status, r.v === first.find((f) => f.id === r.id)!.v])).toEqual([
      ['003A', 'Responded', false],
      ['003B', 'Sent', false],
      ['00QZ', '', true],
    ]);
  });

  it('refuses a contact of an integration that does not exist, and a member of a list that does not', async () => {
    const integration = await newIntegration();
    const missing = { id: integration.id + 1000, clientId };
    const err = await app.db
      .transaction((tx) => upsertContacts(tx, missing, [contact('003X')]))
      .catch((e) => e);
    expect(postgresCodeOf(err)).toBe('23503');
    const err2 = await app.db
      .transaction((tx) =>
        upsertListMembers(
          tx,
          { id: integration.id, clientId },
          '00000000-0000-4000-8000-000000000000',
          [{ memberExternalId: '003X', status: '', addedAt: null }],
          'contact',
        ),
      )
      .catch((e) => e);
    expect(postgresCodeOf(err2)).toBe('23503');
    // Moving a row to a parent that does not exist is refused too.
    await app.db.transaction((tx) => upsertContacts(tx, { id: integration.id, clientId }, [contact('003Y')]));
    const err3 = await app.db
      .update(crmContacts)
      .set({ integrationId: integration.id + 1000 })
      .where(eq(crmContacts.integrationId, integration.id))
      .catch((e) => e);
    expect(postgresCodeOf(err3)).toBe('23503');
    // Renumbering an integration that has contacts is refused, as the key's ON UPDATE NO ACTION did.
    const err4 = await app.db
      .update(integrations)
      .set({ id: integration.id + 2000 })
      .where(eq(integrations.id, integration.id))
      .catch((e) => e);
    expect(postgresCodeOf(err4)).toBe('23503');
  });

  it("deletes a list's members with the list, and an integration's contacts and lists with it", async () => {
    const integration = await newIntegration();
    const ref = { id: integration.id, clientId };
    const listIds = await app.db.transaction(async (tx) => {
      await upsertContacts(tx, ref, [contact('003A'), contact('003B')]);
      return upsertLists(
        tx,
        ref,
        ['701A', '701B'].map((externalId) => ({
          externalId,
          name: externalId,
          kind: 'campaign' as const,
          memberType: 'contact' as const,
          memberCount: 2,
          isActive: true,
          updatedAt: null,
        })),
      );
    });
    for (const listId of listIds.values()) {
      await app.db.transaction((tx) =>
        upsertListMembers(
          tx,
          ref,
          listId,
          ['003A', '003B'].map((memberExternalId) => ({ memberExternalId, status: '', addedAt: null })),
          'contact',
        ),
      );
    }
    const membersOf = async (listId: string) =>
      (await app.db.select().from(crmListMembers).where(eq(crmListMembers.listId, listId))).length;
    await app.db.delete(crmLists).where(eq(crmLists.id, listIds.get('701A')!));
    expect(await membersOf(listIds.get('701A')!)).toBe(0);
    expect(await membersOf(listIds.get('701B')!)).toBe(2);

    await app.db.delete(integrations).where(eq(integrations.id, integration.id));
    const left = await app.db
      .select()
      .from(crmContacts)
      .where(and(eq(crmContacts.clientId, clientId), eq(crmContacts.integrationId, integration.id)));
    expect(left).toEqual([]);
    expect(await membersOf(listIds.get('701B')!)).toBe(0);
  });

  it("keeps a contact's account and a member's contact: checked when set, emptied when deleted", async () => {
    const integration = await newIntegration();
    const ref = { id: integration.id, clientId };
    const nowhere = '00000000-0000-4000-8000-000000000000';
    const listId = await app.db.transaction(async (tx) => {
      await upsertAccounts(
        tx,
        ref,
        [
          {
            externalId: '001A',
            name: 'A',
            website: null,
            ownerExternalId: null,
            updatedAt: '2026-12-01T00:00:00Z',
          },
        ],
        new Map(),
      );
      await upsertContacts(tx, ref, [contact('003A', { accountExternalId: '001A' }), contact('003B')]);
      const lists = await upsertLists(tx, ref, [
        {
          externalId: '701A',
          name: 'A',
          kind: 'campaign',
          memberType: 'contact',
          memberCount: 2,
          isActive: true,
          updatedAt: null,
        },
      ]);
      const id = lists.get('701A')!;
      await upsertListMembers(
        tx,
        ref,
        id,
        ['003A', '003B'].map((memberExternalId) => ({ memberExternalId, status: '', addedAt: null })),
        'contact',
      );
      return id;
    });
    const contacts = await app.db
      .select()
      .from(crmContacts)
      .where(eq(crmContacts.integrationId, integration.id))
      .orderBy(crmContacts.externalId);
    const [account] = await app.db
      .select()
      .from(crmAccounts)
      .where(eq(crmAccounts.integrationId, integration.id));
    expect(contacts.map((c) => c.accountId)).toEqual([account!.id, null]);

    const refused = async (p: Promise<unknown>) => postgresCodeOf(await p.then(() => null).catch((e) => e));
    expect(
      await refused(
        app.db.update(crmContacts).set({ accountId: nowhere }).where(eq(crmContacts.id, contacts[1]!.id)),
      ),
    ).toBe('23503');
    expect(
      await refused(
        app.db
          .insert(crmListMembers)
          .values({ clientId, listId, memberExternalId: '003Z', contactId: nowhere }),
      ),
    ).toBe('23503');
    expect(
      await refused(
        app.db.update(crmListMembers).set({ contactId: nowhere }).where(eq(crmListMembers.listId, listId)),
      ),
    ).toBe('23503');
    // Set to an existing parent, or to null: allowed.
    await app.db
      .update(crmContacts)
      .set({ accountId: account!.id })
      .where(eq(crmContacts.id, contacts[1]!.id));
    await app.db
      .update(crmListMembers)
      .set({ contactId: null })
      .where(eq(crmListMembers.memberExternalId, '003B'));

    await app.db.delete(crmAccounts).where(eq(crmAccounts.id, account!.id));
    const after = await app.db
      .select()
      .from(crmContacts)
      .where(eq(crmContacts.integrationId, integration.id));
    expect(after.map((c) => c.accountId)).toEqual([null, null]);
    await app.db.delete(crmContacts).where(eq(crmContacts.id, contacts[0]!.id));
    const members = await app.db.select().from(crmListMembers).where(eq(crmListMembers.listId, listId));
    expect(members.map((m) => [m.memberExternalId, m.contactId]).sort()).toEqual([
      ['003A', null],
      ['003B', null],
    ]);
  });
});
