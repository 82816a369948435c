import { count } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  MAX_NESTING,
  TOO_DEEP_MESSAGE,
  firstUnstorableText,
  isStorableText,
} from '@rally/shared/schemas/common';
import type { PgTable } from 'drizzle-orm/pg-core';
import { billingAccounts, clients, landingPages, salesReps, ssoConfigs } from '../db/schema/index.ts';
import { createTestApp } from '../../test/helpers.ts';
import type { Browser } from '../../test/http.ts';
import { PASSWORD, makeClient, makeUser, signedIn } from '../../test/http.ts';
import { makeCadence, makeIntegration, makeRep } from '../../test/engagement.ts';

/**
 * Issue 20 item 4: inputs PostgreSQL cannot take (a NUL character, a lone UTF-16 surrogate, an
 * integer beyond its column) answered 500. Each is now a 422 naming the field, and nothing is written.
 */
let app: FastifyInstance;
let acme: string;
let owner: Browser;
let rep: string;
let cadence: number;
let integration: number;

const NUL = 'a\u0000b';
const SURROGATE = 'a\ud800b';
const HUGE = '9007199254740991';

beforeAll(async () => {
  app = await createTestApp();
  acme = await makeClient(app, 'Acme');
  ({ browser: owner } = await signedIn(app, { [acme]: 'purple_owner' }));
  rep = await makeRep(app, acme);
  cadence = await makeCadence(app, acme);
  integration = await makeIntegration(app, acme);
});

type Case = {
  name: string;
  method: 'GET' | 'POST' | 'PUT';
  url: () => string;
  body?: (bad: string) => unknown;
  field: string;
  /** The tracking tags may answer 404 instead (an unknown token): never a 5xx. */
  public?: boolean;
};

const TEXT_CASES: Case[] = [
  {
    name: 'POST /v1/api/auth email',
    method: 'POST',
    url: () => '/v1/api/auth',
    body: (bad) => ({ email: `x${bad}@example.com`, password: PASSWORD }),
    field: 'body.email',
  },
  {
    name: 'POST /v1/rest/tracked/view token',
    method: 'POST',
    url: () => '/v1/rest/tracked/view',
    body: (bad) => ({ token: bad }),
    field: 'body.token',
    public: true,
  },
  {
    name: 'POST /v1/rest/client name',
    method: 'POST',
    url: () => '/v1/rest/client',
    body: (bad) => ({ name: `Initech ${bad}` }),
    field: 'body.name',
  },
  {
    name: 'PUT /v1/rest/client/{id}/sso client_id',
    method: 'PUT',
    url: () => `/v1/rest/client/${acme}/sso`,
    body: (bad) => ({
      issuer: 'https://idp.example.com',
      client_id: bad,
      client_secret: 'secret',
      enabled: false,
    }),
    field: 'body.client_id',
  },
  {
    name: 'POST /v1/rest/client/{id}/landing_page assignee',
    method: 'POST',
    url: () => `/v1/rest/client/${acme}/landing_page`,
    body: (bad) => ({ name: 'LP', assignee: { first_name: bad } }),
    field: 'body.assignee.first_name',
  },
  {
    name: 'POST /sc/sdr/{id} title',
    method: 'POST',
    url: () => `/sc/sdr/${rep}`,
    body: (bad) => ({ title: bad }),
    field: 'body.title',
  },
  {
    name: 'PUT /biller/client/{id}/chargebee/billing_address line1',
    method: 'PUT',
    url: () => `/biller/client/${acme}/chargebee/billing_address`,
    body: (bad) => ({ line1: `1 Main ${bad}`, city: 'Springfield', zip: '12345', country: 'us' }),
    field: 'body.line1',
  },
  {
    name: 'PUT /biller/biller/client/{id}/billing_info company_name',
    method: 'PUT',
    url: () => `/biller/biller/client/${acme}/billing_info`,
    body: (bad) => ({ billing_email: 'ap@example.com', company_name: bad, time_zone: 'UTC' }),
    field: 'body.company_name',
  },
];

const INT_CASES: Case[] = [
  {
    name: 'GET /sc/cadence/{id}?integration_id',
    method: 'GET',
    url: () => `/sc/cadence/${cadence}?integration_id=${HUGE}`,
    field: 'querystring.integration_id',
  },
  {
    name: 'GET /sc/cadence/{huge id}',
    method: 'GET',
    url: () => `/sc/cadence/${HUGE}?integration_id=${integration}`,
    field: 'params.id',
  },
  {
    name: 'GET /sc/sdr/cadence/{id}?integration_id',
    method: 'GET',
    url: () => `/sc/sdr/cadence/${cadence}?integration_id=${HUGE}`,
    field: 'querystring.integration_id',
  },
  {
    name: 'GET /sc/action/sync/cadence/{id}?integration_id',
    method: 'GET',
    url: () => `/sc/action/sync/cadence/${cadence}?integration_id=${HUGE}`,
    field: 'querystring.integration_id',
  },
  {
    name: 'GET /sc/cadence/super/audience?cadence_id',
    method: 'GET',
    url: () => `/sc/cadence/super/audience?cadence_id=${HUGE}`,
    field: 'querystring.cadence_id',
  },
  {
    name: 'GET /biller/client/{id}/usage?from',
    method: 'GET',
    url: () => `/biller/client/${acme}/usage?from=${HUGE}`,
    field: 'querystring.from',
  },
];

async function rowCounts() {
  const n = async (t: PgTable) => (await app.db.select({ n: count() }).from(t))[0]?.n;
  return {
    clients: await n(clients),
    sso: await n(ssoConfigs),
    landingPages: await n(landingPages),
    billingAccounts: await n(billingAccounts),
    reps: await n(salesReps),
  };
}

describe('text PostgreSQL cannot store', () => {
  it('isStorableText / firstUnstorableText find NUL and lone surrogates, keep real emoji', () => {
    expect(isStorableText('plain, ünïcödé and 🚀')).toBe(true);
    for (const bad of [NUL, SURROGATE, '\udc00', 'x\ud83d']) expect(isStorableText(bad), bad).toBe(false);
    expect(firstUnstorableText({ a: 'ok', b: [{ c: 'ok' }, { d: SURROGATE }] })).toEqual(['b', 1, 'd']);
    expect(firstUnstorableText({ a: 1, b: null, c: ['🚀'] })).toBeNull();
  });

  it('a body nested thousands deep is a 422 naming where, not a stack overflow (the fuzz suite found it)', async () => {
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    const res = await owner.request({
      method: 'POST',
      url: '/v1/rest/client',
      payload: `{"name":"x","extra":${deep}}`,
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toEqual({
      field: `body.extra${'.0'.repeat(MAX_NESTING - 1)}`,
      message: TOO_DEEP_MESSAGE,
    });
    expect(firstUnstorableText(JSON.parse(deep))).toBeNull();
    expect(firstUnstorableText({ k: { ['a\u0000']: 1 } })).toEqual(['k', 'a?']);
  });

  it('a multipart body that is not well formed is a 422 on both upload routes, not a 500 (the fuzz suite found it)', async () => {
    for (const url of [
      `/v1/integration/crm/fileforce/client/${acme}/imports`,
      `/v1/rest/client/${acme}/uploads`,
    ]) {
      for (const payload of [
        '\u0000',
        '',
        '--x\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\n\r\na,b',
      ]) {
        const res = await owner.request({
          method: 'POST',
          url,
          payload,
          headers: { 'content-type': 'multipart/form-data; boundary=x' },
        });
        expect(res.statusCode, `${url} ${JSON.stringify(payload)}`).toBe(422);
        expect(res.json().errors[0].field).toMatch(/^body/);
      }
    }
  });

  for (const [label, bad] of [
    ['NUL', NUL],
    ['lone surrogate', SURROGATE],
  ] as const) {
    it.each(TEXT_CASES)(`$name with a ${label}: 422 naming the field, nothing written`, async (c) => {
      const before = await rowCounts();
      const res = await owner.request({ method: c.method, url: c.url(), payload: c.body?.(bad) as object });
      expect(res.statusCode, res.body).toBe(422);
      expect(res.json().errors[0].field).toBe(c.field);
      expect(await rowCounts()).toEqual(before);
    });
  }

  it('the tracking tags with a NUL token (/t/%00/ad/300x250.png, /t/%00/c): 4xx, never 5xx', async () => {
    for (const url of ['/t/%00/ad/300x250.png', '/t/%00/c', '/t/%ED%A0%80/c', '/t/a%00b/ad/300x250.png']) {
      const res = await app.inject({ url });
      expect(res.statusCode, `${url}: ${res.body}`).toBeGreaterThanOrEqual(400);
      expect(res.statusCode, url).toBeLessThan(500);
    }
    const res = await app.inject({ url: '/t/%00/c' });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0].field).toBe('params.token');
  });
});

describe('integers beyond their column', () => {
  it.each(INT_CASES)('$name=9007199254740991: 422 naming the field', async (c) => {
    const res = await owner.request({ method: c.method, url: c.url() });
    expect(res.statusCode, res.body).toBe(422);
    expect(res.json().errors[0].field).toBe(c.field);
  });

  it('a sign-in with NUL in the password is refused as a 422 too (never reaches the database)', async () => {
    const user = await makeUser(app, { [acme]: 'yellow_sdr' });
    const res = await app.inject({
      method: 'POST',
      url: '/v1/api/auth',
      payload: { email: user.email, password: `${PASSWORD}\u0000` },
    });
    expect(res.statusCode).toBeLessThan(500);
  });
});
