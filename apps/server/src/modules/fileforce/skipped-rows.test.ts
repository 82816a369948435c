import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { FileImport } from '@rally/shared/schemas/fileforce';
import { createTestApp, waitFor } from '../../../test/helpers.ts';
import { makeClient, signedIn } from '../../../test/http.ts';
import type { Browser } from '../../../test/http.ts';

/** A real multipart/form-data body, built the way a browser builds one. */
async function multipart(file: string, kind = 'targets') {
  const form = new FormData();
  form.append('kind', kind);
  form.append('file', new Blob([file], { type: 'text/csv' }), 'spring list.csv');
  const request = new Request('http://localhost/', { method: 'POST', body: form });
  return {
    payload: Buffer.from(await request.arrayBuffer()),
    headers: { 'content-type': request.headers.get('content-type')! },
  };
}

describe('GET imports/{id}/skipped.csv: the rows an import skipped, to fix and upload again (issue 42 item 15)', async () => {
  const app = await createTestApp();
  const mine = await makeClient(app, 'Acme');
  const foreign = await makeClient(app, 'Foreign');
  const { browser: owner } = await signedIn(app, { [mine]: 'purple_owner' });
  const { browser: sdr } = await signedIn(app, { [mine]: 'yellow_sdr' });
  const { browser: stranger } = await signedIn(app, { [foreign]: 'purple_owner' });
  const base = (client = mine) => `/v1/integration/crm/fileforce/client/${client}`;

  async function imported(b: Browser, file: string): Promise<FileImport> {
    const { payload, headers } = await multipart(file);
    const created = (await b.post(`${base()}/imports`, payload, { headers })).json() as FileImport;
    expect((await b.post(`${base()}/imports/${created.id}/start`)).statusCode).toBe(202);
    return waitFor(async () => {
      const body = (await b.get(`${base()}/imports/${created.id}`)).json() as FileImport;
      return body.status === 'done' ? body : null;
      // The import runs in a child process of its own (child-process.ts), which loads the app's
      // modules first: 30 s ran out once in a CI-like run beside the other lanes.
    }, 90_000);
  }

  const file = [
    'Email,First Name,Cadence,Day',
    'ann@northwind.example,Ann,Spring,1',
    'not-an-email,"=HYPERLINK(""http://evil.example"")",Spring,1',
    'ann@northwind.example,Ann again,Spring,2',
    'cy@northwind.example,Cy,Spring,0',
    '',
  ].join('\n');
  const done = await imported(owner, file);

  it("lists every skipped row with its problem in plain words and the file's own cells, formulas defused", async () => {
    expect(done).toMatchObject({ imported_rows: 1, error_rows: 3 });
    const res = await owner.get(`${base()}/imports/${done.id}/skipped.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="spring_list-skipped-rows.csv"');
    expect(res.body.split('\r\n')).toEqual([
      'Row,Problem,Email,First Name,Cadence,Day',
      `2,E-mail address: is not a valid e-mail address,not-an-email,"'=HYPERLINK(""http://evil.example"")",Spring,1`,
      '3,E-mail address: duplicate of row 1,ann@northwind.example,Ann again,Spring,2',
      '4,Cadence day: must be a whole number of at least 1,cy@northwind.example,Cy,Spring,0',
      '',
    ]);
  });

  it('a file with nothing skipped gives the header line alone', async () => {
    const clean = await imported(owner, 'Email,Cadence,Day\nbea@northwind.example,Spring,1\n');
    const res = await owner.get(`${base()}/imports/${clean.id}/skipped.csv`);
    expect(res.statusCode).toBe(200);
    expect(res.body).toBe('Row,Problem,Email,Cadence,Day\r\n');
  });

  it('bad input: 422 naming the parameter; an unknown import is 404', async () => {
    const res = await owner.get(`${base()}/imports/not-a-uuid/skipped.csv`);
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('params.importId');
    expect((await owner.get(`${base()}/imports/${randomUUID()}/skipped.csv`)).statusCode).toBe(404);
  });

  it('missing permission: a yellow_sdr (no integration.write) is refused', async () => {
    const res = await sdr.get(`${base()}/imports/${done.id}/skipped.csv`);
    expect(res.statusCode).toBe(403);
    expect(res.json().message).toMatch(/integration/);
  });

  it("foreign tenant: another client's owner gets 404, through their own client or ours", async () => {
    expect((await stranger.get(`${base(foreign)}/imports/${done.id}/skipped.csv`)).statusCode).toBe(404);
    expect((await stranger.get(`${base()}/imports/${done.id}/skipped.csv`)).statusCode).toBe(403);
  });
});
