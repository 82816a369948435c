import { badRequest } from './errors.ts';

/**
 * The part of SCIM's filter language (RFC 7644 §3.4.2.2) that identity providers send to find a
 * resource before creating it: `attribute eq value` comparisons joined by `and`, e.g.
 * `userName eq "bjensen@example.com" and active eq true`. Attribute names and operators are
 * case-insensitive (§3.4.2.2); values are JSON strings, booleans, numbers or null. Anything else is
 * refused with 400 invalidFilter (§3.12) rather than answered wrongly.
 */
export type Comparison = { attribute: string; value: string | boolean | number | null };

const TOKEN = /\s*("(?:[^"\\]|\\.)*"|[^\s"]+)/y;

function tokens(filter: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  let m: RegExpExecArray | null;
  while (TOKEN.lastIndex < filter.length && (m = TOKEN.exec(filter))) out.push(m[1] ?? '');
  if (filter.slice(TOKEN.lastIndex).trim())
    throw badRequest('invalidFilter', `cannot read the filter ${filter}`);
  return out;
}

function valueOf(raw: string): Comparison['value'] {
  if (raw.startsWith('"')) {
    try {
      return JSON.parse(raw) as string;
    } catch {
      throw badRequest('invalidFilter', `${raw} is not a valid string`);
    }
  }
  const lower = raw.toLowerCase();
  if (lower === 'true') return true;
  if (lower === 'false') return false;
  if (lower === 'null') return null;
  if (/^-?\d+(\.\d+)?$/.test(raw)) return Number(raw);
  throw badRequest('invalidFilter', `${raw} is not a value (strings are in double quotes)`);
}

/** Parses a filter into comparisons that must all hold; `attributes` lists those allowed (lower case). */
export function parseFilter(filter: string, attributes: readonly string[]): Comparison[] {
  const t = tokens(filter.trim());
  if (!t.length) throw badRequest('invalidFilter', 'the filter is empty');
  const out: Comparison[] = [];
  for (let i = 0; i < t.length; i += 4) {
    const [attr, op, raw, joiner] = [t[i], t[i + 1], t[i + 2], t[i + 3]];
    if (!attr || !op || raw === undefined) {
      throw badRequest('invalidFilter', `expected "attribute eq value" in ${filter}`);
    }
    if (op.toLowerCase() !== 'eq') {
      throw badRequest('invalidFilter', `the operator ${op} is not supported; use eq (joined by and)`);
    }
    // A schema-qualified name (urn:…:User:userName) names the same attribute.
    const attribute = attr
      .replace(/^urn:ietf:params:scim:schemas:core:2\.0:(User|Group):/i, '')
      .toLowerCase();
    if (!attributes.includes(attribute)) {
      throw badRequest(
        'invalidFilter',
        `filtering on ${attr} is not supported; use ${attributes.join(', ')}`,
      );
    }
    out.push({ attribute, value: valueOf(raw) });
    if (joiner !== undefined && joiner.toLowerCase() !== 'and') {
      throw badRequest('invalidFilter', `${joiner} is not supported; comparisons can be joined by and only`);
    }
    if (joiner !== undefined && i + 4 >= t.length)
      throw badRequest('invalidFilter', `the filter ends with ${joiner}`);
  }
  return out;
}

/**
 * A PATCH path's value filter, `members[value eq "…"]` (RFC 7644 §3.5.2.2): the attribute and the
 * value it names, or null for a plain path.
 */
export function valuePath(path: string): { attribute: string; filter: Comparison[] } | null {
  const m = /^([\w.:-]+)\[(.+)\]$/.exec(path.trim());
  if (!m?.[1] || !m[2]) return null;
  return { attribute: m[1].toLowerCase(), filter: parseFilter(m[2], ['value', 'type', 'primary']) };
}

/** Paging (RFC 7644 §3.4.2.4): startIndex 1-based (below 1 counts as 1), count at least 0, at most `max`. */
export function pageOf(query: Record<string, unknown>, max: number): { startIndex: number; count: number } {
  const num = (name: string, fallback: number) => {
    const raw = query[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n)) throw badRequest('invalidValue', `${name} must be an integer`);
    return n;
  };
  return {
    startIndex: Math.max(1, num('startIndex', 1)),
    count: Math.min(max, Math.max(0, num('count', max))),
  };
}
