import { FEED_ITEM_TYPES } from '@rally/shared/schemas/feed';
import type { FeedItem, FeedItemType } from '@rally/shared/schemas/feed';

/**
 * A stored feed item as the engine hands it over (tracking's StoredFeedItem) or as read back:
 * snake_case columns, names at the time in `data`.
 */
export type StoredFeedItem = {
  id: number | string;
  client_id?: string;
  type: string;
  target_id?: string | null;
  cadence_id?: number | null;
  prospect_id?: string | null;
  sales_rep_id?: string | null;
  data?: Record<string, unknown> | null;
  created_at: string | Date;
};

export type NewFeedItem = {
  clientId: string;
  type: FeedItemType;
  targetId?: string | null;
  cadenceId?: number | null;
  prospectId?: string | null;
  salesRepId?: string | null;
  data?: Record<string, unknown>;
};

const NAME_FIELDS = new Set(['first_name', 'last_name', 'company_name', 'cadence_name', 'sales_rep_name']);

const str = (v: unknown) => (typeof v === 'string' && v.trim() ? v : null);

/** The wire form of a stored item; names from `data` unless the caller already resolved them. */
export function toFeedItem(
  row: StoredFeedItem,
  names: Partial<Pick<FeedItem, 'prospect_name' | 'company_name' | 'cadence_name' | 'sales_rep_name'>> = {},
): FeedItem {
  const data = row.data ?? {};
  const person = [str(data.first_name), str(data.last_name)].filter(Boolean).join(' ');
  const detail: FeedItem['detail'] = {};
  for (const [k, v] of Object.entries(data)) {
    if (NAME_FIELDS.has(k)) continue;
    if (v === null || ['string', 'number', 'boolean'].includes(typeof v)) detail[k] = v as string;
  }
  const type = (FEED_ITEM_TYPES as readonly string[]).includes(row.type)
    ? (row.type as FeedItemType)
    : 'sync';
  return {
    id: Number(row.id),
    type,
    created_at: new Date(row.created_at).toISOString(),
    target_id: row.target_id ?? null,
    prospect_id: row.prospect_id ?? null,
    prospect_name: names.prospect_name ?? (person || null),
    company_name: names.company_name ?? str(data.company_name),
    cadence_id: row.cadence_id ?? null,
    cadence_name: names.cadence_name ?? str(data.cadence_name),
    sales_rep_id: row.sales_rep_id ?? null,
    sales_rep_name: names.sales_rep_name ?? str(data.sales_rep_name),
    detail,
  };
}
