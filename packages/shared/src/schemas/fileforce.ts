import { z } from 'zod';

/**
 * Request and reply shapes of the file import source `fileforce` (SPEC.md §7 "File import under
 * /integration/crm/fileforce/client/{id}/imports, targets/check, fields, revenue"), and the columns
 * it accepts, shared so the web app's mapping screen and the server agree.
 */

export const IMPORT_KINDS = ['targets', 'revenue'] as const;
export type ImportKind = (typeof IMPORT_KINDS)[number];
export const importKindSchema = z.enum(IMPORT_KINDS, { message: 'must be targets or revenue' });

export const IMPORT_STATUSES = ['uploaded', 'checked', 'queued', 'running', 'done', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

export const FIELD_TYPES = [
  'string',
  'email',
  'url',
  'integer',
  'boolean',
  'decimal',
  'currency',
  'date',
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** A column we accept. `aliases` are other header names that map to it (matched like the label). */
export type FileforceField = {
  name: string;
  label: string;
  type: FieldType;
  required: boolean;
  description: string;
  aliases: readonly string[];
};

export const FILEFORCE_FIELDS: Record<ImportKind, readonly FileforceField[]> = {
  targets: [
    {
      name: 'email',
      label: 'E-mail address',
      type: 'email',
      required: true,
      description: "The prospect's e-mail address; one prospect per address.",
      aliases: ['e-mail', 'email', 'work email', 'prospect email', 'contact email'],
    },
    {
      name: 'first_name',
      label: 'First name',
      type: 'string',
      required: false,
      description: "The prospect's first name.",
      aliases: ['firstname', 'given name', 'first'],
    },
    {
      name: 'last_name',
      label: 'Last name',
      type: 'string',
      required: false,
      description: "The prospect's last name.",
      aliases: ['lastname', 'surname', 'family name', 'last'],
    },
    {
      name: 'title',
      label: 'Job title',
      type: 'string',
      required: false,
      description: "The prospect's job title.",
      aliases: ['title', 'position', 'role'],
    },
    {
      name: 'company_name',
      label: 'Company name',
      type: 'string',
      required: false,
      description: "The prospect's company; companies are matched by name.",
      aliases: ['company', 'account', 'account name', 'organization', 'organisation'],
    },
    {
      name: 'company_website',
      label: 'Company website',
      type: 'url',
      required: false,
      description: "The company's website, such as https://example.com.",
      aliases: ['website', 'company url', 'domain', 'company domain'],
    },
    {
      name: 'cadence',
      label: 'Cadence name',
      type: 'string',
      required: false,
      description:
        'The cadence to put the prospect in, by name: a file cadence of that name is created or reused.',
      aliases: ['cadence', 'sequence', 'sequence name'],
    },
    {
      name: 'cadence_id',
      label: 'Cadence id',
      type: 'integer',
      required: false,
      description: 'The id of an existing cadence of this client (instead of a name).',
      aliases: ['sequence id'],
    },
    {
      name: 'day',
      label: 'Cadence day',
      type: 'integer',
      required: false,
      description: "The prospect's current day in the cadence: a whole number of at least 1 (default 1).",
      aliases: ['day', 'day number', 'step', 'current day'],
    },
    {
      name: 'rep_email',
      label: 'Sales rep e-mail',
      type: 'email',
      required: false,
      description: 'The e-mail address of the sales rep working the prospect; the rep is created or reused.',
      aliases: ['rep email', 'sdr email', 'owner email', 'sales rep email address', 'assignee email'],
    },
    {
      name: 'rep_first_name',
      label: 'Sales rep first name',
      type: 'string',
      required: false,
      description: "The sales rep's first name.",
      aliases: ['rep first name', 'sdr first name', 'owner first name'],
    },
    {
      name: 'rep_last_name',
      label: 'Sales rep last name',
      type: 'string',
      required: false,
      description: "The sales rep's last name.",
      aliases: ['rep last name', 'sdr last name', 'owner last name'],
    },
    {
      name: 'rep_title',
      label: 'Sales rep title',
      type: 'string',
      required: false,
      description: "The sales rep's job title.",
      aliases: ['rep title', 'sdr title', 'owner title'],
    },
    {
      name: 'is_active',
      label: 'Active',
      type: 'boolean',
      required: false,
      description: 'Whether the prospect is still on the cadence: true or false (default true).',
      aliases: ['is active', 'active'],
    },
  ],
  revenue: [
    {
      name: 'opportunity_id',
      label: 'Opportunity id',
      type: 'string',
      required: true,
      description: "The opportunity's id in your CRM; importing the same id again updates it.",
      aliases: ['id', 'opportunity id', 'opp id', 'deal id'],
    },
    {
      name: 'name',
      label: 'Opportunity name',
      type: 'string',
      required: true,
      description: "The opportunity's name.",
      aliases: ['name', 'opportunity', 'deal name', 'deal'],
    },
    {
      name: 'account_name',
      label: 'Account name',
      type: 'string',
      required: true,
      description: 'The account (company) of the opportunity; linked to a prospect company of the same name.',
      aliases: ['account', 'company', 'company name'],
    },
    {
      name: 'amount',
      label: 'Amount',
      type: 'decimal',
      required: true,
      description:
        'The amount, such as 1234.56 (at most two decimals; thousands separators and a currency sign are ignored).',
      aliases: ['amount', 'value', 'deal value', 'opportunity amount'],
    },
    {
      name: 'currency',
      label: 'Currency',
      type: 'currency',
      required: false,
      description: 'A 3-letter currency code such as USD (default USD).',
      aliases: ['currency', 'currency code', 'currency iso code', 'currencyisocode'],
    },
    {
      name: 'stage',
      label: 'Stage',
      type: 'string',
      required: true,
      description: 'The stage of the opportunity, such as Prospecting or Closed Won.',
      aliases: ['stage', 'stage name', 'stagename', 'deal stage'],
    },
    {
      name: 'close_date',
      label: 'Close date',
      type: 'date',
      required: false,
      description:
        'The (expected) close date: YYYY-MM-DD; MM/DD/YYYY, DD.MM.YYYY and "May 31, 2024" are accepted too.',
      aliases: ['close date', 'closedate', 'expected close date'],
    },
  ],
};

/** Lower-cases and drops everything but letters and digits: "E-mail Address" → "emailaddress". */
export function normalizeColumnName(name: string): string {
  return name.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '');
}

/**
 * A mapping (field name → column name) guessed from the header row: a column whose name matches a
 * field's name, label or an alias, ignoring case, spaces and punctuation. Each column is used once.
 */
export function suggestMapping(kind: ImportKind, columns: readonly string[]): Record<string, string> {
  const byName = new Map<string, string>();
  for (const c of columns) {
    const key = normalizeColumnName(c);
    if (key && !byName.has(key)) byName.set(key, c);
  }
  const used = new Set<string>();
  const mapping: Record<string, string> = {};
  for (const field of FILEFORCE_FIELDS[kind]) {
    for (const candidate of [field.name, field.label, ...field.aliases]) {
      const column = byName.get(normalizeColumnName(candidate));
      if (column !== undefined && !used.has(column)) {
        mapping[field.name] = column;
        used.add(column);
        break;
      }
    }
  }
  return mapping;
}

export const fieldsQuery = z.object({ kind: importKindSchema.default('targets') });
export const fileforceFieldSchema = z.object({
  name: z.string(),
  label: z.string(),
  type: z.enum(FIELD_TYPES),
  required: z.boolean(),
  description: z.string(),
});
export const fieldsReply = z.array(fileforceFieldSchema);

/** Our field name → the file's column name. */
export const mappingSchema = z.record(
  z.string().min(1).max(50),
  z.string().max(500, 'must be at most 500 characters'),
);
export type ColumnMapping = z.infer<typeof mappingSchema>;

export const importRowErrorSchema = z.object({
  row: z
    .number()
    .int()
    .describe(
      'Row of the file: 1 is the first data row after the header (so row N is line N + 1 of a spreadsheet); blank rows count.',
    ),
  field: z.string().describe('Our field name (email, cadence…), or "row" for a problem with the whole row.'),
  reason: z.string(),
});
export type ImportRowError = z.infer<typeof importRowErrorSchema>;

const isoDateTime = z.iso.datetime({ offset: true });

export const fileImportSummarySchema = z.object({
  id: z.uuid(),
  integration_id: z.number().int(),
  kind: importKindSchema,
  status: z.enum(IMPORT_STATUSES),
  file_name: z.string(),
  byte_size: z.number().int(),
  columns: z.array(z.string()).describe('The header row of the file.'),
  mapping: mappingSchema,
  total_rows: z
    .number()
    .int()
    .nullable()
    .describe('Data rows in the file, once known (after a check or during an import).'),
  processed_rows: z.number().int(),
  imported_rows: z.number().int(),
  error_rows: z.number().int(),
  suppressed_rows: z
    .number()
    .int()
    .describe("Valid rows not imported: the address is on the client's suppression list (issue 44)."),
  failure_reason: z.string().nullable(),
  created_by: z.uuid().nullable(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
  finished_at: isoDateTime.nullable(),
});
export type FileImportSummary = z.infer<typeof fileImportSummarySchema>;
export const fileImportSchema = fileImportSummarySchema.extend({
  errors: z
    .array(importRowErrorSchema)
    .describe('The first bad rows (at most 1000); error_rows counts them all.'),
});
export type FileImport = z.infer<typeof fileImportSchema>;
export const fileImportListReply = z.array(fileImportSummarySchema);

export const updateImportBody = z.object({ mapping: mappingSchema });

export const checkTargetsBody = z.object({
  import_id: z.uuid('must be the id (UUID) of an import'),
  mapping: mappingSchema.optional().describe("Check with this mapping instead of the import's own."),
});
export const checkReply = z.object({
  total_rows: z.number().int(),
  valid_rows: z.number().int(),
  error_rows: z.number().int(),
  errors: z.array(importRowErrorSchema),
  errors_truncated: z.boolean().describe('More bad rows were found than the list holds.'),
});
export type CheckReport = z.infer<typeof checkReply>;

export const revenueQuery = z.object({
  page: z.coerce.number().int('must be a whole number').min(1, 'must be at least 1').default(1),
  page_size: z.coerce
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100, 'must be at most 100')
    .default(25),
});
export const opportunitySchema = z.object({
  id: z.uuid(),
  opportunity_id: z.string(),
  name: z.string(),
  account_name: z.string(),
  company_id: z.uuid().nullable(),
  amount_cents: z.number().int(),
  currency: z.string(),
  stage: z.string(),
  close_date: z.iso.date().nullable(),
  created_at: isoDateTime,
  updated_at: isoDateTime,
});
export type Opportunity = z.infer<typeof opportunitySchema>;
export const revenueReply = z.object({
  items: z.array(opportunitySchema),
  page: z.number().int(),
  page_size: z.number().int(),
  total: z.number().int(),
  totals: z
    .array(z.object({ currency: z.string(), amount_cents: z.number().int(), count: z.number().int() }))
    .describe('Sum of all the imported opportunities, per currency.'),
});
export type RevenueReply = z.infer<typeof revenueReply>;
