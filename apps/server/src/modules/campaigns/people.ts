import { parse } from 'csv-parse/sync';
import { PBA_FIELD_MAX, PBA_FIELDS, PBA_MAX_ROWS } from '@rally/shared/schemas/campaigns';
import type { PbaField, PbaPeopleReply, PbaRow } from '@rally/shared/schemas/campaigns';
import { fieldError } from '../../lib/errors.ts';

/**
 * Reading a list of people for people-based ads (issue 18): a CSV with a header row, read with
 * csv-parse (comma, semicolon or tab; a UTF-8 byte order mark is skipped). A row is usable when it
 * names a person the ad tag can be made for: a valid e-mail, or a first and last name with a company.
 * Every other row says why not, so the uploader can fix the file.
 */

/** Header names (lower-cased, spaces, dashes and underscores dropped) read as each field. */
const HEADERS: Record<PbaField | 'name', readonly string[]> = {
  email: ['email', 'emailaddress', 'mail', 'workemail', 'businessemail'],
  first_name: ['firstname', 'first', 'givenname', 'forename'],
  last_name: ['lastname', 'last', 'surname', 'familyname'],
  company: ['company', 'companyname', 'account', 'accountname', 'organization', 'organisation', 'employer'],
  title: ['title', 'jobtitle', 'position', 'role'],
  name: ['name', 'fullname', 'contactname', 'person'],
};

const normal = (header: string) => header.toLowerCase().replace(/[\s_\-.]/g, '');

// The WHATWG form rule for an e-mail address (what an <input type=email> accepts), with a dot in the domain.
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;

export type Person = {
  row: number;
  match: 'email' | 'name_company';
  email: string;
  firstName: string;
  lastName: string;
  company: string;
  title: string;
};

export type ParsedPeople = PbaPeopleReply & { people: Person[] };

const DELIMITERS = [',', ';', '\t'] as const;

/** The delimiter seen most often in the header line (comma when none is). */
function delimiterOf(text: string): string {
  const firstLine = text.slice(0, Math.max(0, text.search(/\r|\n/)) || text.length);
  let best: string = ',';
  let bestCount = 0;
  for (const d of DELIMITERS) {
    const n = firstLine.split(d).length - 1;
    if (n > bestCount) [best, bestCount] = [d, n];
  }
  return best;
}

/** Reads the CSV; 422 naming `field` when it cannot be read or names no usable column. */
export function parsePeople(csv: string, field = 'body.csv'): ParsedPeople {
  let records: string[][];
  try {
    records = parse(csv, {
      bom: true,
      delimiter: delimiterOf(csv.replace(/^\uFEFF/, '')),
      relax_column_count: true,
      skip_empty_lines: true,
      trim: true,
      // One more than allowed: enough to tell the list is too long without reading all of it.
      to: PBA_MAX_ROWS + 2,
      max_record_size: 64 * 1024,
    }) as string[][];
  } catch (err) {
    const line = (err as { lines?: number }).lines;
    throw fieldError(field, `could not be read as CSV${line ? ` (line ${line})` : ''}: check its quotes`);
  }
  const [header, ...data] = records;
  if (!header) throw fieldError(field, 'is empty: the first row must name the columns');
  if (data.length > PBA_MAX_ROWS) {
    throw fieldError(field, `has more than ${PBA_MAX_ROWS} people: split the list`);
  }

  const index: Partial<Record<PbaField | 'name', number>> = {};
  const ignored: string[] = [];
  header.forEach((h, i) => {
    const key = normal(h);
    const field = (Object.keys(HEADERS) as (PbaField | 'name')[]).find((f) => HEADERS[f].includes(key));
    if (field && index[field] === undefined) index[field] = i;
    else if (h !== '') ignored.push(h.slice(0, PBA_FIELD_MAX));
  });
  const canName = index.name !== undefined || index.first_name !== undefined;
  if (index.email === undefined && !(canName && index.company !== undefined)) {
    throw fieldError(
      field,
      'needs a header row with an email column, or first_name, last_name (or name) and company columns',
    );
  }

  const seenEmail = new Map<string, number>();
  const seenName = new Map<string, number>();
  const rows: PbaRow[] = [];
  const people: Person[] = [];
  data.forEach((values, i) => {
    const row = i + 1;
    const cell = (f: PbaField | 'name') => (index[f] === undefined ? '' : (values[index[f]] ?? '').trim());
    let firstName = cell('first_name');
    let lastName = cell('last_name');
    if (!firstName && !lastName && cell('name')) {
      const parts = cell('name').split(/\s+/);
      firstName = parts[0] ?? '';
      lastName = parts.slice(1).join(' ');
    }
    const email = cell('email').toLowerCase();
    const out = {
      email,
      first_name: firstName,
      last_name: lastName,
      company: cell('company'),
      title: cell('title'),
    };
    const reasons: string[] = [];
    for (const f of PBA_FIELDS) {
      if (out[f].length > PBA_FIELD_MAX) {
        reasons.push(`${f} is longer than ${PBA_FIELD_MAX} characters`);
        out[f] = out[f].slice(0, PBA_FIELD_MAX);
      }
    }
    let match: Person['match'] | null = null;
    if (email && !EMAIL.test(email)) reasons.push('email is not a valid e-mail address');
    else if (email) match = 'email';
    if (!match) {
      if (out.first_name && out.last_name && out.company) match = 'name_company';
      else if (!email) {
        const missing = [
          !out.first_name && 'first name',
          !out.last_name && 'last name',
          !out.company && 'company',
        ].filter(Boolean);
        reasons.push(`no email, and no ${missing.join(', ')} to match by name and company instead`);
      }
    }
    if (match === 'email') {
      const earlier = seenEmail.get(email);
      if (earlier !== undefined) reasons.push(`same email as row ${earlier}`);
      else seenEmail.set(email, row);
    } else if (match === 'name_company') {
      const key = [out.first_name, out.last_name, out.company].map((v) => v.toLowerCase()).join('\u0001');
      const earlier = seenName.get(key);
      if (earlier !== undefined) reasons.push(`same name and company as row ${earlier}`);
      else seenName.set(key, row);
    }
    const usable = match !== null && reasons.length === 0;
    rows.push({ row, usable, match: usable ? match : null, reasons, ...out });
    if (usable && match) {
      people.push({
        row,
        match,
        email: out.email,
        firstName: out.first_name,
        lastName: out.last_name,
        company: out.company,
        title: out.title,
      });
    }
  });

  const columns = Object.fromEntries(
    PBA_FIELDS.map((f) => [f, index[f] === undefined ? null : (header[index[f]] ?? null)]),
  ) as Record<PbaField, string | null>;
  if (columns.first_name === null && index.name !== undefined)
    columns.first_name = header[index.name] ?? null;
  if (columns.last_name === null && index.name !== undefined) columns.last_name = header[index.name] ?? null;
  return {
    total: rows.length,
    usable: people.length,
    unusable: rows.length - people.length,
    columns,
    ignored_columns: ignored,
    rows,
    people,
  };
}
