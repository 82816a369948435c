/**
 * The part of a vendor adapter that writes the ad fields (issue 38, ARCHITECTURE.md §13): each
 * target's ad image URL and click URL into two fields of the person record the platform e-mails.
 * Sequence adapters (Salesloft, Outreach, Apollo) and CRM adapters (HubSpot, Salesforce, Marketo)
 * carry one as `adFields`; modules/ad-fields decides what to write and remembers what was written.
 */

import type { AdapterContext } from './adapter-context.ts';

/** A field of the person record that can hold a URL (a text field the owner may pick). */
export type AdVendorField = {
  /** The vendor's API name (what is written, and what the template's merge field names). */
  name: string;
  label: string;
  /** Salesforce: the object the field is on (`Contact` or `Lead`); null elsewhere. */
  object: string | null;
};

/** The two fields of one connection, by their API names. */
export type AdFieldNames = { image: string; click: string };

/** One person record's wanted values. */
export type AdFieldWrite = { recordId: string; image: string; click: string };

/** What became of one record of a batch. */
export type AdFieldWriteResult =
  | { recordId: string; ok: true }
  /** The vendor refused this record alone (deleted there, invalid id): recorded, not retried until it changes. */
  | { recordId: string; ok: false; reason: string };

/**
 * The whole write-back cannot go on until the owner acts (a field is missing, write access was not
 * granted): the connection's settings show `message` and the run stops without retrying.
 */
export class AdFieldsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdFieldsError';
  }
}

/** The fields Rally creates where the vendor's API allows: API names and labels per vendor. */
export type AdFieldSpec = { name: string; label: string };

export type AdFieldsPort = {
  /** Records per write request (the vendor's documented batch size; 1 where it has none). */
  readonly batchSize: number;
  /** Fields of the person record that can hold a URL. */
  available(ctx: AdapterContext): Promise<AdVendorField[]>;
  /**
   * Creates the two fields (or finds them, when a field of that name already exists) and answers
   * their API names; absent where the vendor's API cannot create them. A vendor that refuses (no
   * permission for it) raises AdFieldsError with what the owner must do.
   */
  create?(ctx: AdapterContext): Promise<AdFieldNames>;
  /** What the owner creates in the vendor when Rally cannot, in plain words. */
  instructions: string;
  /**
   * Checks before a run that both fields exist and can be written; raises AdFieldsError naming
   * what is wrong. Called once per run (one or two vendor requests).
   */
  check(ctx: AdapterContext, fields: AdFieldNames): Promise<void>;
  /**
   * Writes one batch (at most `batchSize` records). Rate-limit replies are waited out inside
   * (vendor-http); a refused token raises VendorAuthError, a missing field or scope AdFieldsError.
   */
  write(ctx: AdapterContext, fields: AdFieldNames, items: AdFieldWrite[]): Promise<AdFieldWriteResult[]>;
};

/** The labels of the fields Rally creates (and suggests in instructions). */
export const AD_FIELD_LABELS = { image: 'Rally ad image URL', click: 'Rally ad click URL' } as const;
