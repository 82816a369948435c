import { describe, expect, it } from 'vitest';
import { createTestApp } from './helpers.ts';
import { signedIn } from './http.ts';
import type { Browser } from './http.ts';
import { RANGE, daysAgo, fieldsOf, standardScene } from './reports-world.ts';

/**
 * Issue 42 item 11, "Tables lack the basics … sort on every column": the report tables paged by the
 * server (alignment, signals, priority, pipeline generated and progressed) take `sort` (an
 * allow-listed column) and `order`, ordered in SQL with a unique tie-breaker, so the pages put
 * together are the one sorted list whichever way it is read.
 */
type Item = Record<string, unknown>;
type Case = {
  path: string;
  items: (body: Item) => Item[];
  id: (row: Item) => string;
  sorts: { sort: string; key: (row: Item) => string | number | null }[];
};

const lower = (v: unknown) => (typeof v === 'string' ? v.toLowerCase() : null);
const time = (v: unknown) => (typeof v === 'string' ? Date.parse(v) : null);
const list = (b: Item) => b.items as Item[];

const CASES: Case[] = [
  {
    path: 'alignment',
    items: list,
    id: (r) => String(r.account_id),
    sorts: [
      { sort: 'name', key: (r) => lower(r.name) },
      { sort: 'impressions', key: (r) => Number(r.impressions) },
      { sort: 'outreach', key: (r) => Number(r.outreach_activities) },
      { sort: 'last_outreach', key: (r) => time(r.last_outreach_at) },
    ],
  },
  {
    path: 'signals/utilization',
    items: list,
    id: (r) => String(r.target_id),
    sorts: [
      { sort: 'name', key: (r) => lower(r.name) },
      { sort: 'super', key: (r) => time(r.super_date) },
      { sort: 'contacted', key: (r) => time(r.contacted_at) },
    ],
  },
  {
    path: 'pipeline/priority',
    items: list,
    id: (r) => String(r.opportunity_id),
    sorts: [
      { sort: 'amount', key: (r) => Number(r.amount_cents) },
      { sort: 'name', key: (r) => lower(r.name) },
      { sort: 'score', key: (r) => Number(r.score) },
    ],
  },
  {
    path: 'pipeline/generated',
    items: list,
    id: (r) => String(r.id),
    sorts: [
      { sort: 'amount', key: (r) => Number(r.amount_cents) },
      { sort: 'name', key: (r) => lower(r.name) },
      { sort: 'created_at', key: (r) => time(r.created_at) },
    ],
  },
  {
    path: 'pipeline/progressed',
    items: list,
    id: (r) => `${String(r.opportunity_id)} ${String(r.moved_at)}`,
    sorts: [
      { sort: 'amount', key: (r) => Number(r.amount_cents) },
      { sort: 'name', key: (r) => lower(r.name) },
      { sort: 'moved_at', key: (r) => time(r.moved_at) },
    ],
  },
];

/** In order by key (nulls last either way), ascending or descending. */
function expectOrdered(keys: (string | number | null)[], order: 'asc' | 'desc', what: string) {
  const present = keys.filter((k) => k !== null);
  expect(keys.slice(0, present.length), `${what}: empty values last`).toEqual(present);
  for (let i = 1; i < present.length; i++) {
    const [a, b] = [present[i - 1]!, present[i]!];
    const ok = order === 'asc' ? a <= b : a >= b;
    expect(ok, `${what}: ${String(a)} then ${String(b)}`).toBe(true);
  }
}

describe('server-side sort of the paged report tables (issue 42 item 11)', async () => {
  const app = await createTestApp();
  const s = await standardScene(app, 'Sortco');
  const foreign = await standardScene(app, 'Othersort');
  // Generated (created after Alpha's engagement 10–12 days ago, or Beta's 2 days ago) and moved
  // forward after it; two amounts tie, so only the tie-breaker orders them.
  const gen = [
    await s.deal(s.alpha, { name: 'Gen charlie', amount: 300_000, created: daysAgo(9) }),
    await s.deal(s.alpha, { name: 'Gen alpha', amount: 100_000, created: daysAgo(8) }),
    await s.deal(s.alpha, { name: 'Gen delta', amount: 700_000, created: daysAgo(7) }),
    await s.deal(s.beta, { name: 'Gen bravo', amount: 100_000, created: daysAgo(1) }),
  ];
  await s.moved(gen[0]!, 'Prospecting', 'Qualification', daysAgo(5));
  await s.moved(gen[1]!, 'Prospecting', 'Proposal', daysAgo(4));
  await s.moved(gen[2]!, 'Qualification', 'Proposal', daysAgo(3));
  const { browser: owner } = await signedIn(app, { [s.clientId]: 'purple_owner' });
  const { browser: viewer } = await signedIn(app, { [s.clientId]: 'grey_viewer' });
  const base = `/v1/report/client/${s.clientId}`;

  const get = async (b: Browser, url: string) => {
    const res = await b.get(url);
    expect(res.statusCode, `${url}: ${res.body}`).toBe(200);
    return res.json() as Item;
  };

  for (const c of CASES) {
    it(`${c.path}: each column either way, pages of 2 put together are the one sorted list`, async () => {
      const range = c.path === 'pipeline/priority' ? '' : `${RANGE}&`;
      for (const { sort, key } of c.sorts) {
        for (const order of ['asc', 'desc'] as const) {
          const what = `${c.path} ${sort} ${order}`;
          const whole = c.items(
            await get(owner, `${base}/${c.path}?${range}sort=${sort}&order=${order}&page_size=200`),
          );
          expect(whole.length, what).toBeGreaterThanOrEqual(3);
          expectOrdered(whole.map(key), order, what);
          const paged: Item[] = [];
          for (let page = 1; page <= Math.ceil(whole.length / 2); page++)
            paged.push(
              ...c.items(
                await get(
                  owner,
                  `${base}/${c.path}?${range}sort=${sort}&order=${order}&page=${page}&page_size=2`,
                ),
              ),
            );
          expect(paged.map(c.id), what).toEqual(whole.map(c.id));
        }
      }
    });
  }

  it('a column without `order` takes its natural order: numbers descending, text ascending', async () => {
    const amounts = list(await get(owner, `${base}/pipeline/generated?${RANGE}&sort=amount`)).map((r) =>
      Number(r.amount_cents),
    );
    expectOrdered(amounts, 'desc', 'generated amount');
    const names = list(await get(owner, `${base}/alignment?${RANGE}&sort=name`)).map((r) => lower(r.name));
    expectOrdered(names, 'asc', 'alignment name');
  });

  it('an unknown column or order: 422 naming querystring.sort or querystring.order', async () => {
    for (const c of CASES) {
      for (const [q, field] of [
        ['sort=revenue', 'querystring.sort'],
        ['sort=name%3B%20drop%20table%20targets', 'querystring.sort'],
        ['sort=name&order=up', 'querystring.order'],
      ] as const) {
        const res = await owner.get(`${base}/${c.path}?${q}`);
        expect(res.statusCode, `${c.path} ${q}`).toBe(422);
        expect(fieldsOf(res), `${c.path} ${q}`).toEqual([field]);
      }
    }
    // Engaged prospects are counted for a page's rows only: not a sort of the alignment.
    expect(fieldsOf(await owner.get(`${base}/alignment?sort=engaged`))).toEqual(['querystring.sort']);
  });

  it('403 without reports.read (a viewer); another client is out of reach', async () => {
    for (const c of CASES) {
      expect((await viewer.get(`${base}/${c.path}?sort=name`)).statusCode, c.path).toBe(403);
      const res = await owner.get(`/v1/report/client/${foreign.clientId}/${c.path}?sort=name`);
      expect([403, 404], c.path).toContain(res.statusCode);
      expect(res.body, c.path).not.toContain('Othersort');
    }
  });

  it('the OpenAPI document at /v1/docs lists sort and order on each report', async () => {
    const doc = (await app.inject('/v1/docs/json')).json() as {
      paths: Record<string, { get?: { parameters?: { name: string; in: string }[] } }>;
    };
    for (const c of CASES) {
      const path = `/v1/report/client/{clientId}/${c.path}`;
      const names = (doc.paths[path]?.get?.parameters ?? [])
        .filter((p) => p.in === 'query')
        .map((p) => p.name);
      expect(names, path).toEqual(expect.arrayContaining(['sort', 'order', 'page', 'page_size']));
    }
  });
});
