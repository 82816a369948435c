import { sql } from 'drizzle-orm';
import type { SQL } from 'drizzle-orm';

/**
 * Pieces every report query shares: the row shape, value readers, the date range and the account
 * ties. Their own file, so the rollups and the repository (which reads the rollups) do not import
 * each other.
 */

/** A report's date range. */
export type Range = { from: Date; to: Date };

export type Row = Record<string, unknown>;
export const rowsOf = (result: unknown) => (result as { rows: Row[] }).rows;
export const num = (v: unknown) => (v === null || v === undefined ? 0 : Number(v));
/** A timestamp column as ISO text; null stays null. */
export const iso = (v: unknown) =>
  v === null || v === undefined ? null : new Date(v as string).toISOString();

/**
 * Which prospects belong to which account (a Rally company): the prospect's own company, the CRM
 * contact's account, and else the e-mail's domain equal to the account's or company's website
 * domain. CRM contacts and accounts deleted in the CRM give none. Read from the stored ties
 * (`prospect_account_ties`, migration 0037, kept by triggers in the writer's transaction; docs/reports.md
 * "Stored ties"). A CTE named `account_prospects (company_id, prospect_id)`. `companies`, a query of
 * company ids, keeps only those accounts.
 */
export function accountProspects(clientId: string, companies?: SQL): SQL {
  return sql`account_prospects as (
    select pt.company_id, pt.prospect_id from prospect_account_ties pt
     where pt.client_id = ${clientId} ${companies ? sql`and pt.company_id in (${companies})` : sql``}
  )`;
}

/** The accounts the given prospects are tied to (the stored ties): rows of `company_id`. */
export function accountsOfProspects(clientId: string, prospectIds: string[]): SQL {
  return sql`
    select distinct pt.company_id from prospect_account_ties pt
     where pt.client_id = ${clientId} and pt.prospect_id = any(${sql.param(prospectIds)}::uuid[])`;
}
