import { afterAll, describe, expect, it } from 'vitest';
import { checkRequest, loadSpec, recordingProxy } from '../../../../../test/vendor-specs/check.ts';
import type { Spec } from '../../../../../test/vendor-specs/check.ts';
import { outreachDemoData, startFakeOutreach } from '../../../../../test/fakes/outreach.ts';
import { connectAndSyncTwice } from '../../../../../test/vendor-specs/sync-walk.ts';
import { oauthCredentialsFrom } from '../../vendor-http.ts';
import { createOutreachAdapter } from './adapter.ts';

/**
 * Every request an Outreach sync sends (connect, a first and a second sync of the demo org), checked
 * against Outreach's published OpenAPI (test/vendor-specs/outreach-sync-*.json, dated, with its
 * source): the operation exists, the JSON:API parameters name documented attributes and
 * relationships, every request carries the JSON:API media type, and the attributes the adapter reads
 * exist in the documented resources.
 */

const TYPE_OF: Record<string, string> = {
  sequences: 'sequence',
  sequenceSteps: 'sequenceStep',
  sequenceStates: 'sequenceState',
  users: 'user',
  accounts: 'account',
  prospects: 'prospect',
};

/** What adapter.ts reads of each resource (attributes, then relationships). */
const READ: Record<string, { attributes: string[]; relationships: string[] }> = {
  sequence: {
    attributes: [
      'name',
      'enabled',
      'lastUsedAt',
      'deliverCount',
      'numContactedProspects',
      'sequenceType',
      'updatedAt',
      'createdAt',
    ],
    relationships: ['owner'],
  },
  sequenceStep: { attributes: ['order', 'interval', 'date'], relationships: ['sequence'] },
  sequenceState: {
    attributes: [
      'state',
      'deliverCount',
      'replyCount',
      'bounceCount',
      'callCompletedAt',
      'updatedAt',
      'createdAt',
    ],
    relationships: ['prospect', 'sequence', 'sequenceStep', 'user'],
  },
  user: { attributes: ['firstName', 'lastName', 'email', 'title', 'locked', 'updatedAt'], relationships: [] },
  account: { attributes: ['name', 'domain', 'websiteUrl'], relationships: [] },
  prospect: {
    attributes: ['firstName', 'lastName', 'emails', 'title', 'occupation', 'company', 'updatedAt'],
    relationships: ['account'],
  },
};

const namesOf = (spec: Spec, schema: string) =>
  Object.keys(spec.components?.schemas?.[schema]?.properties ?? {});

/** Problems of one request's JSON:API parameters against the resource's documented names. */
function jsonApiProblems(spec: Spec, type: string, query: URLSearchParams): string[] {
  const attributes = namesOf(spec, type);
  const relationships = namesOf(spec, `${type}Relationships`);
  const problems: string[] = [];
  for (const [key, value] of query) {
    const filter = /^filter\[([A-Za-z]+)\](\[id\])?$/.exec(key);
    const fields = /^fields\[([A-Za-z]+)\]$/.exec(key);
    if (filter) {
      const [, name, isId] = filter;
      const ok = isId ? relationships.includes(name!) : name === 'id' || attributes.includes(name!);
      if (!ok) problems.push(`${type}: ${key} names nothing documented`);
    } else if (fields) {
      const names = [...namesOf(spec, fields[1]!), ...namesOf(spec, `${fields[1]}Relationships`)];
      for (const f of value.split(','))
        if (!names.includes(f)) problems.push(`${key}: ${f} is not documented`);
    } else if (key === 'sort') {
      if (!attributes.includes(value.replace(/^-/, '')))
        problems.push(`${type}: sort ${value} is not documented`);
    } else if (key === 'include') {
      for (const r of value.split(','))
        if (!relationships.includes(r)) problems.push(`${type}: include ${r} is not documented`);
    } else if (!['page[size]', 'page[after]', 'count'].includes(key)) {
      problems.push(`${type}: query ${key} is not a JSON:API parameter`);
    }
  }
  return problems;
}

describe("an Outreach sync's requests match Outreach's OpenAPI", () => {
  const closers: (() => Promise<unknown>)[] = [];
  afterAll(async () => {
    for (const close of closers) await close();
  });

  it('connect, first and second sync: documented operations, names and the media type on every request', async () => {
    const fake = await startFakeOutreach({ data: outreachDemoData(Date.UTC(2026, 11, 1)) });
    const proxy = await recordingProxy(fake.apiUrl);
    closers.push(fake.close, proxy.close);
    const adapter = createOutreachAdapter({
      apiUrl: proxy.url,
      authUrl: fake.authUrl,
      clientId: fake.clientId,
      clientSecret: fake.clientSecret,
    });
    const { first } = await connectAndSyncTwice(
      adapter,
      oauthCredentialsFrom(fake.issueTokens()),
      () => proxy.sent.length,
    );

    const spec = loadSpec('outreach-sync-2026-12-05.json');
    // "All requests must specify the JSON API media type (application/vnd.api+json) within the
    // Content-Type request header" (developer portal, "Making requests"): GETs included.
    expect(proxy.sent.filter((r) => r.headers?.['content-type'] !== 'application/vnd.api+json')).toEqual([]);
    // The API root (whoami) is not in the OpenAPI; public clients use it for the token's user and org.
    const listings = proxy.sent.filter((r) => r.path !== '/api/v2');
    expect(listings.length).toBe(proxy.sent.length - 1);
    const problems = listings.flatMap((r) => [
      ...checkRequest(spec, r).filter((p) => !/: query /.test(p)),
      ...jsonApiProblems(spec, TYPE_OF[r.path.split('/')[3]!]!, r.query),
    ]);
    expect(problems).toEqual([]);
    expect(new Set(listings.map((r) => r.path))).toEqual(
      new Set([
        '/api/v2/users',
        '/api/v2/sequences',
        '/api/v2/sequenceSteps',
        '/api/v2/sequenceStates',
        '/api/v2/accounts',
        '/api/v2/prospects',
      ]),
    );
    // The attributes and relationships the adapter reads exist in the documented resources.
    for (const [type, read] of Object.entries(READ)) {
      expect(namesOf(spec, type)).toEqual(expect.arrayContaining(read.attributes));
      expect(namesOf(spec, `${type}Relationships`)).toEqual(expect.arrayContaining(read.relationships));
    }
    console.info(
      `outreach demo org: connect + first sync ${first} requests, second sync ${proxy.sent.length - first}`,
    );
  });
});
