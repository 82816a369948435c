/**
 * The GAQL half of the Google Ads fake (test/fakes/google-ads.ts): parses what Rally sends to
 * `googleAds:search`, refuses what Google refuses, and shapes rows as REST answers them.
 * Sources, developers.google.com/google-ads/api:
 * - "Google Ads Query Language grammar": `SELECT fields FROM resource [WHERE cond AND …] [ORDER BY]
 *   [LIMIT n]`; conditions `field op value`, `field BETWEEN 'a' AND 'b'`, `field IN (…)`.
 * - A field the resource does not offer (not its own, an attributed resource's, a segment or a
 *   metric it supports) is refused: QueryError UNRECOGNIZED_FIELD ("Unrecognized field in the
 *   query"). Fields removed by a version are unrecognized there (v23 removed campaign.start_date
 *   for campaign.start_date_time). Rally never needs `metrics.reach`: there is none.
 * - "Segmentation › Core date segments": `segments.date` in SELECT needs a finite date range in WHERE
 *   (QueryError EXPECTED_FILTERS_ON_DATE_RANGE otherwise).
 * - REST rows: nested camelCase objects holding the fields selected (plus the resource's
 *   `resourceName`); int64 values (metrics, ids) as decimal text; a `fieldMask` of the selection.
 * Only the resources and fields Rally reads are catalogued; an unknown one is refused as Google would.
 */

export type GaqlCondition = { field: string; op: string; values: string[] };
export type GaqlQuery = { select: string[]; from: string; where: GaqlCondition[] };
export class GaqlError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }
}

const CUSTOMER = [
  'customer.resource_name',
  'customer.id',
  'customer.descriptive_name',
  'customer.currency_code',
  'customer.time_zone',
  'customer.status',
  'customer.manager',
];
const CAMPAIGN = [
  'campaign.resource_name',
  'campaign.id',
  'campaign.name',
  'campaign.status',
  'campaign.primary_status',
  'campaign.primary_status_reasons',
  'campaign.advertising_channel_type',
  'campaign.start_date_time',
  'campaign.end_date_time',
  'campaign.campaign_budget',
  'campaign.contains_eu_political_advertising',
];
const AD_GROUP = ['ad_group.resource_name', 'ad_group.id', 'ad_group.name', 'ad_group.status'];
const AD_GROUP_AD = [
  'ad_group_ad.resource_name',
  'ad_group_ad.status',
  'ad_group_ad.primary_status',
  'ad_group_ad.primary_status_reasons',
  'ad_group_ad.ad.id',
  'ad_group_ad.ad.name',
  'ad_group_ad.ad.final_urls',
  'ad_group_ad.policy_summary.approval_status',
  'ad_group_ad.policy_summary.review_status',
];
const METRICS = ['metrics.impressions', 'metrics.clicks', 'metrics.cost_micros', 'metrics.ctr'];
const SEGMENTS = ['segments.date'];

/** Fields each FROM resource offers (its own, attributed resources', segments, metrics). */
const CATALOGUE: Record<string, Set<string>> = {
  customer: new Set([...CUSTOMER, ...METRICS, ...SEGMENTS]),
  campaign: new Set([...CAMPAIGN, ...CUSTOMER, ...METRICS, ...SEGMENTS]),
  ad_group_ad: new Set([...AD_GROUP_AD, ...AD_GROUP, ...CAMPAIGN, ...CUSTOMER, ...METRICS, ...SEGMENTS]),
};

const unquote = (v: string) => v.replace(/^'(.*)'$|^"(.*)"$/, (_m, a?: string, b?: string) => a ?? b ?? '');
const COND =
  /^\s*([a-z_]+(?:\.[a-z_]+)+)\s*(?:(=|!=|>=|<=|>|<)\s*('[^']*'|"[^"]*"|[\w.-]+)|\s+(BETWEEN)\s+('[^']*')\s+AND\s+('[^']*')|\s+(IN)\s*\(([^)]*)\))\s*/i;

export function parseGaql(text: unknown): GaqlQuery {
  if (typeof text !== 'string' || !text.trim()) throw new GaqlError('QUERY_NOT_SPECIFIED', 'Empty query.');
  const m =
    /^\s*SELECT\s+(.+?)\s+FROM\s+([a-z_]+)(?:\s+WHERE\s+(.+?))?(?:\s+ORDER\s+BY\s+.+?)?(?:\s+LIMIT\s+\d+)?\s*$/is.exec(
      text,
    );
  if (!m) throw new GaqlError('UNEXPECTED_INPUT', 'Error in query: unexpected input.');
  const from = m[2]!.toLowerCase();
  const offered = CATALOGUE[from];
  if (!offered) throw new GaqlError('INVALID_RESOURCE_NAME', `Unrecognized resource name: '${from}'.`);
  const select = m[1]!.split(',').map((f) => f.trim());
  const where: GaqlCondition[] = [];
  let rest = m[3] ?? '';
  while (rest.trim()) {
    const c = COND.exec(rest);
    if (!c) throw new GaqlError('UNEXPECTED_INPUT', `Error in query: unexpected input ${rest.trim()}.`);
    if (c[2]) where.push({ field: c[1]!, op: c[2], values: [unquote(c[3]!)] });
    else if (c[4]) where.push({ field: c[1]!, op: 'BETWEEN', values: [unquote(c[5]!), unquote(c[6]!)] });
    else where.push({ field: c[1]!, op: 'IN', values: c[8]!.split(',').map((v) => unquote(v.trim())) });
    rest = rest.slice(c[0].length);
    const and = /^AND\s+/i.exec(rest);
    if (and) rest = rest.slice(and[0].length);
    else if (rest.trim())
      throw new GaqlError('UNEXPECTED_INPUT', `Error in query: unexpected input ${rest}.`);
  }
  for (const f of [...select, ...where.map((w) => w.field)])
    if (!offered.has(f))
      throw new GaqlError('UNRECOGNIZED_FIELD', `Unrecognized field in the query: '${f}'.`);
  if (select.includes('segments.date')) {
    const dates = where.filter((w) => w.field === 'segments.date');
    const finite =
      dates.some((w) => w.op === 'BETWEEN' || w.op === '=' || w.op === 'IN') ||
      (dates.some((w) => w.op.startsWith('>')) && dates.some((w) => w.op.startsWith('<')));
    if (!finite)
      throw new GaqlError(
        'EXPECTED_FILTERS_ON_DATE_RANGE',
        'A finite date range on segments.date must be given in WHERE when segments.date is selected.',
      );
  }
  return { select, from, where };
}

/** Whether a flat row (`{'campaign.status': 'PAUSED', …}`) meets every condition. */
export function matches(row: Record<string, unknown>, where: GaqlCondition[]): boolean {
  return where.every(({ field, op, values }) => {
    const v = row[field] === undefined ? undefined : String(row[field]);
    if (v === undefined) return false;
    const [a = '', b = ''] = values;
    switch (op) {
      case '=':
        return v === a;
      case '!=':
        return v !== a;
      case 'IN':
        return values.includes(v);
      case 'BETWEEN':
        return v >= a && v <= b;
      case '>=':
        return v >= a;
      case '<=':
        return v <= a;
      case '>':
        return v > a;
      case '<':
        return v < a;
      default:
        return false;
    }
  });
}

const camel = (s: string) => s.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

/** A flat row as REST answers it: nested camelCase objects of the selected fields. */
export function shape(row: Record<string, unknown>, q: GaqlQuery): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const fields = [...q.select];
  if (!fields.includes(`${q.from}.resource_name`)) fields.push(`${q.from}.resource_name`);
  for (const f of fields) {
    if (row[f] === undefined) continue;
    const parts = f.split('.').map(camel);
    let at = out;
    for (const p of parts.slice(0, -1)) at = (at[p] ??= {}) as Record<string, unknown>;
    at[parts[parts.length - 1]!] = row[f];
  }
  return out;
}

export const fieldMaskOf = (q: GaqlQuery) => q.select.map((f) => f.split('.').map(camel).join('.')).join(',');
