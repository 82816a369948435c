import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Makes test/vendor-specs/google-ads-<version>-<date>.json: the request messages of the Google Ads
 * API methods Rally calls, as an OpenAPI excerpt check.ts reads, derived from Google's own protos
 * (github.com/googleapis/googleapis, google/ads/googleads/<version>/…). Google publishes no REST
 * discovery document in a repository; the protos are the source of the REST JSON (proto3 JSON
 * mapping: lowerCamelCase field names, int64 as text, enums as their names).
 *
 *   node apps/server/test/vendor-specs/google-ads-from-protos.ts <googleapis git dir> <version> <rest version>
 *
 * Only the messages reachable from the requests below are kept.
 */

type Field = { name: string; type: string; repeated: boolean; map: boolean };
type Message = { fullName: string; scope: string[]; fields: Field[] };

const [gitDir, version = 'v25', restVersion = 'v26'] = process.argv.slice(2);
if (!gitDir) throw new Error('usage: google-ads-from-protos.ts <googleapis git dir> [version] [rest version]');
const git = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' });
const commit = git('rev-parse', 'HEAD').trim();
const date = git('log', '-1', '--format=%cs', 'HEAD').trim();
const root = `google/ads/googleads/${version}`;
const files = git('ls-tree', '-r', '--name-only', 'HEAD', root)
  .split('\n')
  .filter((f) => /\/(actions|common|enums|resources|services)\/[^/]+\.proto$/.test(f));

const SCALARS: Record<string, string> = {
  string: 'string',
  bytes: 'string',
  int64: 'string',
  uint64: 'string',
  int32: 'integer',
  uint32: 'integer',
  sint32: 'integer',
  double: 'number',
  float: 'number',
  bool: 'boolean',
};
const messages = new Map<string, Message>();
const enums = new Set<string>();

for (const file of files) {
  const text = git('show', `HEAD:${file}`)
    .replace(/\/\/[^\n]*/g, '')
    // Field options may hold braces: `[(google.api.resource_reference) = { type: "…" }]`.
    .replace(/\[[^[\]]*\]/g, '');
  const pkg = /package\s+([\w.]+)\s*;/.exec(text)?.[1] ?? '';
  const stack: { kind: string; name: string }[] = [];
  let statement = '';
  for (const ch of text) {
    if (ch !== '{' && ch !== '}' && ch !== ';') {
      statement += ch;
      continue;
    }
    const s = statement.trim().replace(/\s+\./g, '.').replace(/\s+/g, ' ');
    statement = '';
    if (ch === '{') {
      const [kind = '', name = ''] = s.split(' ');
      stack.push({ kind, name });
      if (kind === 'message') {
        const scope = stack.filter((x) => x.kind === 'message').map((x) => x.name);
        const fullName = [pkg, ...scope].join('.');
        messages.set(fullName, { fullName, scope: [pkg, ...scope.slice(0, -1)], fields: [] });
      }
      if (kind === 'enum') enums.add([pkg, ...stack.filter((x) => x.kind !== 'oneof').map((x) => x.name)].join('.'));
      continue;
    }
    if (ch === '}') {
      stack.pop();
      continue;
    }
    const inMessage = stack.filter((x) => x.kind !== 'oneof').at(-1)?.kind === 'message';
    if (!inMessage) continue;
    const m = /^(optional |repeated )?(map<[^>]+>|[\w.]+) (\w+) = \d+$/.exec(s);
    if (!m) continue;
    const owner = [pkg, ...stack.filter((x) => x.kind === 'message').map((x) => x.name)].join('.');
    messages.get(owner)?.fields.push({
      name: m[3]!,
      type: m[2]!,
      repeated: m[1] === 'repeated ',
      map: m[2]!.startsWith('map<'),
    });
  }
}

/** The full name a type refers to from inside `scope` (protobuf's innermost-first lookup). */
function resolveType(type: string, scope: string[]): string | null {
  if (type.startsWith('google.')) return messages.has(type) || enums.has(type) ? type : null;
  for (let i = scope.length; i > 0; i--) {
    const candidate = `${scope.slice(0, i).join('.')}.${type}`;
    if (messages.has(candidate) || enums.has(candidate)) return candidate;
  }
  // Siblings in other packages of the same version (common, resources, enums).
  for (const sub of ['common', 'resources', 'services', 'enums']) {
    const candidate = `google.ads.googleads.${version}.${sub}.${type}`;
    if (messages.has(candidate) || enums.has(candidate)) return candidate;
  }
  return null;
}

const camel = (s: string) => s.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());
type Schema = Record<string, unknown>;
const schemas: Record<string, Schema> = {};
function schemaOf(fullName: string): void {
  if (schemas[fullName]) return;
  const msg = messages.get(fullName);
  if (!msg) throw new Error(`no message ${fullName}`);
  const properties: Record<string, Schema> = {};
  schemas[fullName] = { type: 'object', properties };
  for (const f of msg.fields) {
    let prop: Schema;
    if (f.map) prop = { type: 'object', additionalProperties: true };
    else if (SCALARS[f.type]) prop = { type: SCALARS[f.type] };
    else if (f.type === 'google.protobuf.FieldMask') prop = { type: 'string' };
    else {
      const ref = resolveType(f.type, [...msg.scope, msg.fullName.split('.').pop()!]);
      if (!ref) prop = { type: 'string', description: `unresolved ${f.type}` };
      else if (enums.has(ref)) prop = { type: 'string' };
      else {
        schemaOf(ref);
        prop = { $ref: `#/components/schemas/${ref}` };
      }
    }
    properties[camel(f.name)] = f.repeated ? { type: 'array', items: prop } : prop;
  }
}

const services = `google.ads.googleads.${version}.services`;
const methods: Record<string, string> = {
  'campaignBudgets:mutate': 'MutateCampaignBudgetsRequest',
  'campaigns:mutate': 'MutateCampaignsRequest',
  'adGroups:mutate': 'MutateAdGroupsRequest',
  'adGroupCriteria:mutate': 'MutateAdGroupCriteriaRequest',
  'assets:mutate': 'MutateAssetsRequest',
  'adGroupAds:mutate': 'MutateAdGroupAdsRequest',
  'googleAds:mutate': 'MutateGoogleAdsRequest',
  'googleAds:search': 'SearchGoogleAdsRequest',
};
const paths: Record<string, unknown> = {};
for (const [method, request] of Object.entries(methods)) {
  const full = `${services}.${request}`;
  schemaOf(full);
  paths[`/${restVersion}/customers/{customerId}/${method}`] = {
    post: { requestBody: { content: { 'application/json': { schema: { $ref: `#/components/schemas/${full}` } } } } },
  };
}

const spec = {
  openapi: '3.0.0',
  info: {
    title: `Google Ads API ${restVersion} (requests Rally sends), from the ${version} protos`,
    'x-source': `github.com/googleapis/googleapis ${root} at ${commit} (${date}); the newest version in that snapshot. Rally calls ${restVersion}: its paths are ${restVersion}'s, the messages ${version}'s.`,
  },
  servers: [{ url: 'https://googleads.googleapis.com' }],
  paths,
  components: { schemas },
};
const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.join(here, `google-ads-${version}-protos-${date}.json`);
writeFileSync(out, `${JSON.stringify(spec, null, 1)}\n`);
console.log(`${out}: ${Object.keys(schemas).length} messages`);
