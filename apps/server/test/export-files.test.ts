import { parse } from 'csv-parse/sync';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { exportFiles, integrations } from '../src/db/schema/index.ts';
import { createTestApp } from './helpers.ts';
import { Browser, makeClient, signedIn } from './http.ts';

/**
 * Issue 18: "`GET /download/{id}` (a binary download: a zip of a campaign's ad PNGs … or a finished
 * export file)" (SPEC.md §7 "GET /download/{id} (binary)"). A report's CSV is asked for with
 * `POST /v1/report/client/{id}/export_files`, written by a job part by part, listed with its status,
 * and downloaded through `/v1/download/{id}` once done.
 */
const ROWS = 4_500; // three pages of the export's 2,000
const FROM = Date.UTC(2026, 0, 1) / 1000;
const TO = Date.UTC(2027, 0, 1) / 1000;
const RANGE = `from=${FROM}&to=${TO}`;
const fieldsOf = (res: { json(): unknown }) =>
  ((res.json() as { errors?: { field: string }[] }).errors ?? []).map((e) => e.field);

type FileReply = {
  id: string;
  status: string;
  rows: number;
  bytes: number;
  name: string;
  download_url: string | null;
};

describe('export files: a report CSV written in the background, downloaded by id (issue 18)', async () => {
  const app = await createTestApp();
  const clientId = await makeClient(app, 'Files Co');
  const [crm] = await app.db.insert(integrations).values({ clientId, source: 'salesforce' }).returning();
  await app.db.execute(sql`
    insert into opportunities (client_id, integration_id, external_id, name, account_name, amount_cents,
                               currency, stage, crm_created_at)
    select ${clientId}, ${crm!.id}, 'ext-' || n,
           case when n % 1000 = 0 then '=cmd|'' /C calc''!A0 ' || n else 'Deal ' || n end,
           'Account ' || (n % 10), n * 100, 'USD', 'Prospecting',
           timestamptz '2026-03-01 00:00:00+00' + ((n / 3) || ' minutes')::interval
      from generate_series(1, ${ROWS}) n`);
  const otherId = await makeClient(app, 'Other Co');
  const { browser: owner } = await signedIn(app, { [clientId]: 'purple_owner' });
  const { browser: viewer } = await signedIn(app, { [clientId]: 'grey_viewer' });
  const { browser: outsider } = await signedIn(app, { [otherId]: 'purple_owner' });
  const base = `/v1/report/client/${clientId}/export_files`;

  async function finished(id: string): Promise<FileReply> {
    let file: FileReply | undefined;
    await expect
      .poll(
        async () => {
          const list = (await owner.get(base)).json() as { items: FileReply[] };
          file = list.items.find((f) => f.id === id);
          return file?.status;
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe('done');
    return file!;
  }

  it('POST answers 202 queued; the job writes the file; its download is the streamed export, byte for byte', async () => {
    const res = await owner.post(base, { report: 'opportunity', from: FROM, to: TO });
    expect(res.statusCode, res.body).toBe(202);
    const queued = res.json() as FileReply;
    expect(queued).toMatchObject({
      status: 'queued',
      filter: 'all',
      rows: 0,
      download_url: null,
      name: 'opportunities-all-2026-01-01-2027-01-01.csv',
      range: { from: FROM, to: TO },
    });

    const done = await finished(queued.id);
    expect(done).toMatchObject({ rows: ROWS, download_url: `/v1/download/${queued.id}` });

    const file = await owner.get(done.download_url!);
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(file.headers['content-disposition']).toBe(`attachment; filename="${done.name}"`);
    expect(Buffer.byteLength(file.body)).toBe(done.bytes);
    const streamed = await owner.get(`/v1/report/client/${clientId}/opportunity/export?${RANGE}`);
    expect(file.body).toBe(streamed.body);
    const [header, ...rows] = parse(file.body) as string[][];
    expect(header?.[0]).toBe('Opportunity');
    expect(rows).toHaveLength(ROWS);
    // Formula-injection safe: the cells that start with = come out with a leading apostrophe.
    expect(rows.filter((r) => r[0]!.startsWith("'=cmd|")).length).toBe(Math.floor(ROWS / 1000));
    expect(rows.some((r) => r[0]!.startsWith('='))).toBe(false);
  }, 120_000);

  it('a filter keeps its rows only; a file being written, or one that failed, answers 409 saying so', async () => {
    const res = await owner.post(base, { report: 'opportunity', filter: 'won', from: FROM, to: TO });
    expect(res.statusCode, res.body).toBe(202);
    const done = await finished((res.json() as FileReply).id);
    expect(done).toMatchObject({ rows: 0, name: 'opportunities-won-2026-01-01-2027-01-01.csv' });
    expect(parse((await owner.get(done.download_url!)).body)).toHaveLength(1); // the header only

    const expiresAt = new Date(Date.now() + 86_400_000);
    const common = { clientId, report: 'opportunity', filter: 'all', filename: 'x.csv', expiresAt } as const;
    const [running] = await app.db
      .insert(exportFiles)
      .values({
        ...common,
        status: 'running',
        rangeFrom: new Date(FROM * 1000),
        rangeTo: new Date(TO * 1000),
      })
      .returning();
    const busy = await owner.get(`/v1/download/${running!.id}`);
    expect(busy.statusCode).toBe(409);
    expect(busy.json().message).toBe('This export is not finished yet: download it when its status is done.');
    const [failed] = await app.db
      .insert(exportFiles)
      .values({
        ...common,
        status: 'failed',
        error: 'The export stopped after a server error. Ask for the file again.',
        rangeFrom: new Date(FROM * 1000),
        rangeTo: new Date(TO * 1000),
      })
      .returning();
    const broken = await owner.get(`/v1/download/${failed!.id}`);
    expect(broken.statusCode).toBe(409);
    expect(broken.json().message).toMatch(/stopped after a server error/);

    // An expired file is gone: not listed, not downloadable.
    const [old] = await app.db
      .insert(exportFiles)
      .values({
        ...common,
        status: 'done',
        expiresAt: new Date(Date.now() - 1000),
        rangeFrom: new Date(FROM * 1000),
        rangeTo: new Date(TO * 1000),
      })
      .returning();
    expect((await owner.get(`/v1/download/${old!.id}`)).statusCode).toBe(404);
    const listed = (await owner.get(base)).json() as { items: FileReply[] };
    expect(listed.items.map((f) => f.id)).not.toContain(old!.id);
  }, 120_000);

  it('bad input is a 422 naming the field, and writes nothing', async () => {
    const before = ((await owner.get(base)).json() as { items: unknown[] }).items.length;
    for (const [body, field] of [
      [{ report: 'prospects' }, 'body.report'],
      [{ report: 'opportunity', filter: 'everything' }, 'body.filter'],
      [{ report: 'opportunity', from: TO, to: FROM }, 'body.to'],
      [{ report: 'opportunity', from: 'yesterday' }, 'body.from'],
      [{}, 'body.report'],
    ] as const) {
      const res = await owner.post(base, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(fieldsOf(res), JSON.stringify(body)).toContain(field);
    }
    expect(((await owner.get(base)).json() as { items: unknown[] }).items).toHaveLength(before);
  });

  it('401 signed out; 403 without reports.read; another client sees none of it', async () => {
    const stranger = new Browser(app);
    stranger.clientId = clientId;
    expect((await stranger.get(base)).statusCode).toBe(401);
    expect((await stranger.post(base, { report: 'opportunity' })).statusCode).toBe(401);

    const res = await owner.post(base, { report: 'opportunity', from: FROM, to: TO });
    const done = await finished((res.json() as FileReply).id);

    expect((await viewer.get(base)).statusCode).toBe(403);
    expect((await viewer.post(base, { report: 'opportunity' })).statusCode).toBe(403);
    const denied = await viewer.get(done.download_url!);
    expect(denied.statusCode).toBe(403);
    expect(denied.json().message).toMatch(/reports\.read/);

    // The other client's owner: as its own client the id is nothing; as this client, not a member.
    const foreign = await outsider.get(done.download_url!);
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json().message).toBe('Nothing to download here: no such campaign or file.');
    expect(
      ((await outsider.get(`/v1/report/client/${otherId}/export_files`)).json() as { items: unknown[] })
        .items,
    ).toEqual([]);
    expect((await outsider.get(base)).statusCode).toBe(403);
  }, 120_000);
});
