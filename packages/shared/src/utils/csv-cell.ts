/**
 * A spreadsheet runs a cell that starts with = + - @ as a formula — `=HYPERLINK(...)` in a prospect's
 * name would run on the reader's machine — so such text cells get a leading apostrophe, as OWASP
 * advises. Spreadsheets skip what a reader cannot see before the sign (spaces, tabs, line breaks,
 * control characters, zero-width and other invisible characters such as U+200B or a byte-order mark)
 * and some read the full-width and small forms (＝ ＋ － ＠, ﹦ ﹢ ﹣ ﹫) as the ASCII ones, so those
 * count too. Numbers are written as numbers (a negative amount stays a number). The server's CSV
 * exports and the web app's "export what is shown" both go through here.
 */
// A leading tab or carriage return always (OWASP's list); before a sign: Cc controls (tab, CR, LF…), Cf format characters (U+200B-U+200F, U+2060-U+2064,
// U+FEFF, U+00AD…), Z space separators (NBSP, U+3000…), and the blank letters that draw nothing.
const FORMULA_START =
  /^(?:[\t\r]|[\p{Cc}\p{Cf}\p{Z}\s\u115F\u1160\u2800\u3164\uFFA0]*[=+\-@\uFF1D\uFF0B\uFF0D\uFF20\uFE66\uFE62\uFE63\uFE6B])/u;

export function safeCsvCell(value: unknown): string | number {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  const text = value instanceof Date ? value.toISOString() : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}

/** One CSV field as RFC 4180 writes it: quoted when it holds a comma, quote or line break. */
const field = (cell: string | number) => {
  const text = String(cell);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

/** A header line and rows as CSV text (CRLF line ends), every cell made safe first. */
export function csvFromRows(header: readonly string[], rows: readonly (readonly unknown[])[]): string {
  return [header, ...rows].map((r) => r.map((c) => field(safeCsvCell(c))).join(',')).join('\r\n') + '\r\n';
}
