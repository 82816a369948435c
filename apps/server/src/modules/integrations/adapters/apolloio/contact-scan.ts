import type { AdapterContext } from '../../port.ts';

/**
 * Reading Apollo's contacts through its one contact listing, `POST /contacts/search` (API-NOTES.md
 * §3), which has no updated-since or date-range filter and shows at most 500 pages of 100: "a display
 * limit of 50,000 records (100 records per page, up to 500 pages). Add more filters to narrow your
 * search results as much as possible" (Search for Contacts, test/vendor-specs/apollo-2026-12-05.json).
 * The documented filters are keywords, contact stages and lists; the documented sorts include
 * contact_created_at and contact_updated_at, either way.
 */

const PER_PAGE = 100;

export type Pagination = {
  page: number | string;
  per_page: number | string;
  total_entries: number | string;
  total_pages: number | string;
};

type ApolloStatus = {
  id: string;
  emailer_campaign_id: string;
  status: string;
  current_step_position: number | null;
  added_by_user_id: string | null;
  send_email_from_email_account_id?: string | null;
};

export type ApolloContact = {
  id: string;
  created_at: string;
  first_name: string | null;
  last_name: string | null;
  title: string | null;
  email: string | null;
  organization_name: string | null;
  account_id: string | null;
  account?: { id: string; name: string | null; domain?: string | null; website_url?: string | null } | null;
  owner_id: string | null;
  updated_at: string;
  contact_campaign_statuses?: ApolloStatus[] | null;
};

type SearchReply = { contacts: ApolloContact[]; pagination: Pagination };

type Call = <T>(
  ctx: AdapterContext,
  method: 'GET' | 'POST',
  path: string,
  query?: Record<string, string | number>,
  body?: unknown,
) => Promise<T>;

export const totalPages = (p: Pagination | undefined) => {
  const n = Number(p?.total_pages);
  return Number.isFinite(n) ? n : null;
};

export const apolloSearchCapMessage = (missed: number, total: number, cap: number) =>
  `Apollo's contact search shows at most ${cap.toLocaleString('en-US')} contacts per filter: ` +
  `${missed.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} contacts could not be read, ` +
  'so their sequence steps are not in Rally. Spread them over contact stages in Apollo: each stage is read on its own.';

export function createContactScan({ call, maxPages }: { call: Call; maxPages: number }) {
  const search = (ctx: AdapterContext, body: Record<string, unknown>) =>
    call<SearchReply>(ctx, 'POST', '/contacts/search', {}, { ...body, per_page: PER_PAGE });

  /**
   * Every contact matching `filter` into `into`, past the search's cap where it can be: newest created
   * first up to the cap, then oldest created first until it meets what the first walk read (twice
   * the cap). A contact created meanwhile shifts the first walk by one: a repeat, not a gap.
   */
  async function readEvery(
    ctx: AdapterContext,
    filter: Record<string, unknown>,
    into: Map<string, ApolloContact>,
  ): Promise<{ total: number; complete: boolean }> {
    let total = 0;
    let oldest = '';
    for (let page = 1; page <= maxPages; page++) {
      const reply = await search(ctx, {
        ...filter,
        sort_by_field: 'contact_created_at',
        sort_ascending: false,
        page,
      });
      total = Number(reply.pagination?.total_entries ?? 0) || 0;
      for (const c of reply.contacts) {
        into.set(c.id, c);
        oldest = c.created_at;
      }
      if (!reply.contacts.length || page >= (totalPages(reply.pagination) ?? page))
        return { total, complete: true };
    }
    for (let page = 1; page <= maxPages; page++) {
      const reply = await search(ctx, {
        ...filter,
        sort_by_field: 'contact_created_at',
        sort_ascending: true,
        page,
      });
      for (const c of reply.contacts) {
        if (Date.parse(c.created_at) > Date.parse(oldest)) return { total, complete: true };
        into.set(c.id, c);
      }
      if (!reply.contacts.length || page >= (totalPages(reply.pagination) ?? page))
        return { total, complete: true };
    }
    return { total, complete: false };
  }

  /** Every contact: past twice the cap, each contact stage on its own ("Add more filters"). */
  async function readAllContacts(ctx: AdapterContext): Promise<Map<string, ApolloContact>> {
    const into = new Map<string, ApolloContact>();
    const whole = await readEvery(ctx, {}, into);
    if (whole.complete) return into;
    const { contact_stages: stages } = await call<{ contact_stages: { id: string }[] }>(
      ctx,
      'GET',
      '/contact_stages',
    );
    for (const stage of stages ?? []) await readEvery(ctx, { contact_stage_ids: [stage.id] }, into);
    if (into.size < whole.total) {
      ctx.warn?.(apolloSearchCapMessage(whole.total - into.size, whole.total, maxPages * PER_PAGE));
    }
    return into;
  }

  /** Contacts updated after `since`, or null when more changed than the search's cap shows. */
  async function readChanged(ctx: AdapterContext, since: string): Promise<Map<string, ApolloContact> | null> {
    const sinceMs = Date.parse(since);
    const changed = new Map<string, ApolloContact>();
    for (let page = 1; page <= maxPages; page++) {
      const reply = await search(ctx, { sort_by_field: 'contact_updated_at', sort_ascending: false, page });
      for (const contact of reply.contacts) {
        if (Date.parse(contact.updated_at) <= sinceMs) return changed;
        if (!changed.has(contact.id)) changed.set(contact.id, contact);
      }
      if (!reply.contacts.length || page >= (totalPages(reply.pagination) ?? page)) return changed;
    }
    return null;
  }

  return { all: readAllContacts, changed: readChanged };
}
