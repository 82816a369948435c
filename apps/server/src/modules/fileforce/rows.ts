import { format } from 'date-fns/format';
import { isValid } from 'date-fns/isValid';
import { parse as parseDate } from 'date-fns/parse';
import { isEmail } from '@rally/shared';
import type { ColumnMapping, ImportKind, ImportRowError } from '@rally/shared/schemas/fileforce';
import type { CsvRecord } from './csv.ts';

/**
 * Row validation of the file import: turns one CSV record into a target or an opportunity, or into
 * the reasons it cannot be imported, in words a user can act on. The same code runs for the dry run
 * (`targets/check`) and the import, so the check's report is what the import will do.
 */

const MAX_DAY = 1000;
const MAX_TEXT = 200;
const MAX_CENTS = 1e15;

export const REASONS = {
  required: 'is required',
  email: 'is not a valid e-mail address',
  url: 'is not a valid URL',
  unknownCadence: 'unknown cadence',
  cadenceId: 'must be a cadence id (a whole number)',
  day: 'must be a whole number of at least 1',
  dayMax: `must be at most ${MAX_DAY}`,
  boolean: 'must be true or false',
  quoting: "the row's quoting is broken",
  encoding: 'is not valid UTF-8 text',
  amount: 'must be an amount of at least 0 with at most 2 decimals, such as 1234.56',
  currency: 'must be a 3-letter currency code such as USD',
  date: 'must be a date such as 2024-05-31',
  duplicate: (row: number) => `duplicate of row ${row}`,
  tooLong: (max: number) => `must be at most ${max} characters`,
  tooManyValues: (got: number, want: number) =>
    `has ${got} values but the header has ${want} columns (is a comma missing its quotes?)`,
} as const;

export type TargetValue = {
  /** Lower-cased: the prospect's key (its external id). */
  email: string;
  firstName: string;
  lastName: string;
  title: string;
  company: { name: string; website: string | null } | null;
  cadence: { id: number } | { name: string } | null;
  day: number;
  rep: { email: string; firstName: string; lastName: string; title: string } | null;
  isActive: boolean;
};

export type RevenueValue = {
  opportunityId: string;
  name: string;
  accountName: string;
  amountCents: number;
  currency: string;
  stage: string;
  /** YYYY-MM-DD */
  closeDate: string | null;
};

export type RowResult =
  | { row: number; ok: true; kind: 'targets'; value: TargetValue }
  | { row: number; ok: true; kind: 'revenue'; value: RevenueValue }
  | { row: number; ok: false; errors: ImportRowError[] };

export type ValidatorContext = {
  /** Ids of the client's cadences, for `cadence_id`. */
  cadenceIds: ReadonlySet<number>;
};

// One e-mail rule for every source of a sales rep (CSV rows here, synced users in integrations/store.ts).
export { isEmail };

/** A website as people type it ("acme.com" or a full URL), with https:// added when missing. */
export function parseWebsite(value: string): string | null {
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? value : `https://${value}`;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    if (!url.hostname.includes('.') || /\s/.test(value)) return null;
    return withScheme;
  } catch {
    return null;
  }
}

const TRUE = new Set(['true', 'yes', 'y', '1']);
const FALSE = new Set(['false', 'no', 'n', '0']);

/** "$1,234.5" → 123450 cents; null when it is not an amount. */
export function parseAmountCents(value: string): number | null {
  const bare = value.replace(/[\s$€£¥]/g, '');
  const m = /^(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?$/.exec(bare);
  if (!m?.[1]) return null;
  const whole = Number(m[1].replaceAll(',', ''));
  const cents = whole * 100 + Number((m[2] ?? '').padEnd(2, '0'));
  return Number.isSafeInteger(cents) && cents < MAX_CENTS ? cents : null;
}

// US month-first before day-first: "05/06/2024" is May 6 (CRM exports); "31/05/2024" falls through.
const DATE_PATTERNS = [
  'yyyy-MM-dd',
  'yyyy/MM/dd',
  'M/d/yyyy',
  'd/M/yyyy',
  'd.M.yyyy',
  'MMM d, yyyy',
  'MMMM d, yyyy',
  'd MMM yyyy',
  'd MMMM yyyy',
];
const REFERENCE_DATE = new Date(2000, 0, 1);

/** A close date in one of the common spellings → YYYY-MM-DD; null when it is not a date. */
export function parseCloseDate(value: string): string | null {
  const iso = /^(\d{4}-\d{2}-\d{2})T[\d:.]+(Z|[+-]\d{2}:?\d{2})?$/.exec(value);
  const text = iso?.[1] ?? value;
  for (const pattern of DATE_PATTERNS) {
    const date = parseDate(text, pattern, REFERENCE_DATE);
    if (isValid(date) && date.getFullYear() >= 1900 && date.getFullYear() <= 2200) {
      return format(date, 'yyyy-MM-dd');
    }
  }
  return null;
}

/**
 * The first row of each key of a file (a prospect in a cadence, an opportunity id), for "duplicate
 * of row N", in 12 bytes a key: a 64-bit fingerprint of the key in an open-addressing table rather
 * than the key itself, which with a map entry costs over 100 bytes and made a file of a million rows
 * hold some 150 MB. Two different keys share a fingerprint with a chance of about n² / 2⁶⁵ (one in
 * 37 million for a million keys); the later row would then be reported as a duplicate.
 */
export function createFirstRows(): { claim(key: string, row: number): number | undefined } {
  let mask = 1023;
  let hashes = new Int32Array(2 * (mask + 1));
  let rows = new Uint32Array(mask + 1); // 0: empty slot (rows start at 1)
  let size = 0;
  let h1 = 0;
  let h2 = 0;
  // cyrb53's two 32-bit lanes, both kept.
  const fingerprint = (key: string) => {
    let a = 0xdeadbeef;
    let b = 0x41c6ce57;
    for (let i = 0; i < key.length; i++) {
      const c = key.charCodeAt(i);
      a = Math.imul(a ^ c, 2654435761);
      b = Math.imul(b ^ c, 1597334677);
    }
    a = Math.imul(a ^ (a >>> 16), 2246822507) ^ Math.imul(b ^ (b >>> 13), 3266489909);
    b = Math.imul(b ^ (b >>> 16), 2246822507) ^ Math.imul(a ^ (a >>> 13), 3266489909);
    h1 = a;
    h2 = b;
  };
  const slotOf = (a: number, b: number) => {
    let i = a & mask;
    while (rows[i] !== 0 && (hashes[2 * i] !== a || hashes[2 * i + 1] !== b)) i = (i + 1) & mask;
    return i;
  };
  const grow = () => {
    const oldHashes = hashes;
    const oldRows = rows;
    mask = mask * 2 + 1;
    hashes = new Int32Array(2 * (mask + 1));
    rows = new Uint32Array(mask + 1);
    for (let j = 0; j < oldRows.length; j++) {
      if (oldRows[j] === 0) continue;
      const a = oldHashes[2 * j] ?? 0;
      const b = oldHashes[2 * j + 1] ?? 0;
      const i = slotOf(a, b);
      hashes[2 * i] = a;
      hashes[2 * i + 1] = b;
      rows[i] = oldRows[j] ?? 0;
    }
  };
  return {
    /** The row that first had `key`; undefined (and `row` recorded as its first) if none did. */
    claim(key, row) {
      fingerprint(key);
      const i = slotOf(h1, h2);
      if (rows[i] !== 0) return rows[i];
      hashes[2 * i] = h1;
      hashes[2 * i + 1] = h2;
      rows[i] = row;
      if (++size * 2 > mask) grow();
      return undefined;
    },
  };
}

/**
 * A validator for one import: field positions come from the mapping and the header, and it
 * remembers the rows it accepted so a later copy is reported as a duplicate of the first.
 */
export function createRowValidator(
  kind: ImportKind,
  columns: readonly string[],
  mapping: ColumnMapping,
  ctx: ValidatorContext,
): (record: CsvRecord) => RowResult | null {
  const index = new Map<string, number>();
  for (const [field, column] of Object.entries(mapping)) {
    const i = columns.indexOf(column);
    if (i >= 0) index.set(field, i);
  }
  const firstRows = createFirstRows();

  return (record) => {
    if (record.row === 0) return null;
    if ('problem' in record) {
      return {
        row: record.row,
        ok: false,
        errors: [
          {
            row: record.row,
            field: 'row',
            reason: record.problem === 'quoting' ? REASONS.quoting : REASONS.encoding,
          },
        ],
      };
    }
    const { row, values } = record;
    if (values.every((v) => v.trim() === '')) return null; // a blank row
    const errors: ImportRowError[] = [];
    const fail = (field: string, reason: string) => {
      errors.push({ row, field, reason });
    };
    if (values.length > columns.length && values.slice(columns.length).some((v) => v.trim() !== '')) {
      fail('row', REASONS.tooManyValues(values.length, columns.length));
      return { row, ok: false, errors };
    }
    const get = (field: string): string => {
      const i = index.get(field);
      return i === undefined ? '' : (values[i] ?? '').trim();
    };
    const text = (field: string, max = MAX_TEXT): string => {
      const v = get(field);
      if (v.length > max) fail(field, REASONS.tooLong(max));
      return v;
    };
    const required = (field: string, max = MAX_TEXT): string => {
      const v = text(field, max);
      if (!v) fail(field, REASONS.required);
      return v;
    };

    if (kind === 'revenue') {
      const opportunityId = required('opportunity_id');
      const name = required('name', 300);
      const accountName = required('account_name');
      const stage = required('stage', 100);
      const amountText = required('amount', 50);
      const amountCents = amountText ? parseAmountCents(amountText) : null;
      if (amountText && amountCents === null) fail('amount', REASONS.amount);
      const currencyText = get('currency');
      if (currencyText && !/^[A-Za-z]{3}$/.test(currencyText)) fail('currency', REASONS.currency);
      const dateText = get('close_date');
      const closeDate = dateText ? parseCloseDate(dateText) : null;
      if (dateText && closeDate === null) fail('close_date', REASONS.date);
      if (errors.length || amountCents === null) return { row, ok: false, errors };
      const first = firstRows.claim(opportunityId, row);
      if (first !== undefined) {
        fail('opportunity_id', REASONS.duplicate(first));
        return { row, ok: false, errors };
      }
      return {
        row,
        ok: true,
        kind,
        value: {
          opportunityId,
          name,
          accountName,
          amountCents,
          currency: (currencyText || 'USD').toUpperCase(),
          stage,
          closeDate,
        },
      };
    }

    const email = required('email', 254);
    if (email && !isEmail(email)) fail('email', REASONS.email);
    const firstName = text('first_name');
    const lastName = text('last_name');
    const title = text('title');
    const companyName = text('company_name');
    const websiteText = text('company_website', 500);
    const website = websiteText ? parseWebsite(websiteText) : null;
    if (websiteText && !website) fail('company_website', REASONS.url);

    let cadence: TargetValue['cadence'] = null;
    const cadenceIdText = get('cadence_id');
    const cadenceName = text('cadence');
    if (cadenceIdText) {
      const id = /^\d{1,9}$/.test(cadenceIdText) ? Number(cadenceIdText) : null;
      if (id === null) fail('cadence_id', REASONS.cadenceId);
      else if (!ctx.cadenceIds.has(id)) fail('cadence_id', REASONS.unknownCadence);
      else cadence = { id };
    } else if (cadenceName) {
      cadence = { name: cadenceName };
    }

    const dayText = get('day');
    let day = 1;
    if (dayText) {
      if (!/^\d+$/.test(dayText) || Number(dayText) < 1) fail('day', REASONS.day);
      else if (Number(dayText) > MAX_DAY) fail('day', REASONS.dayMax);
      else day = Number(dayText);
    }

    const repEmail = text('rep_email', 254);
    if (repEmail && !isEmail(repEmail)) fail('rep_email', REASONS.email);
    const rep = repEmail
      ? {
          email: repEmail.toLowerCase(),
          firstName: text('rep_first_name'),
          lastName: text('rep_last_name'),
          title: text('rep_title'),
        }
      : null;

    const activeText = get('is_active').toLowerCase();
    let isActive = true;
    if (activeText) {
      if (TRUE.has(activeText)) isActive = true;
      else if (FALSE.has(activeText)) isActive = false;
      else fail('is_active', REASONS.boolean);
    }

    if (errors.length) return { row, ok: false, errors };
    const key = `${email.toLowerCase()}\u0000${cadence === null ? '' : 'id' in cadence ? `#${cadence.id}` : cadence.name.toLowerCase()}`;
    const first = firstRows.claim(key, row);
    if (first !== undefined) {
      fail('email', REASONS.duplicate(first));
      return { row, ok: false, errors };
    }
    return {
      row,
      ok: true,
      kind,
      value: {
        email: email.toLowerCase(),
        firstName,
        lastName,
        title,
        company: companyName ? { name: companyName, website } : null,
        cadence,
        day,
        rep,
        isActive,
      },
    };
  };
}

/** Problems of a mapping for a file, naming the field (`body.mapping.<field>`) for the 422. */
export function mappingProblems(
  kind: ImportKind,
  fields: readonly { name: string; required: boolean }[],
  columns: readonly string[],
  mapping: ColumnMapping,
): { field: string; message: string }[] {
  const problems: { field: string; message: string }[] = [];
  const known = new Set(fields.map((f) => f.name));
  const present = new Set(columns.filter((c) => c.trim() !== ''));
  for (const [field, column] of Object.entries(mapping)) {
    if (column === '') continue;
    if (!known.has(field)) {
      problems.push({ field: `body.mapping.${field}`, message: `is not a field of a ${kind} import` });
    } else if (!present.has(column)) {
      problems.push({ field: `body.mapping.${field}`, message: `column "${column}" is not in the file` });
    }
  }
  for (const f of fields) {
    if (f.required && !mapping[f.name]) {
      problems.push({
        field: `body.mapping.${f.name}`,
        message: 'is required: choose the column that holds it',
      });
    }
  }
  return problems;
}
