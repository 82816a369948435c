import type {
  AdapterContext,
  Credentials,
  Page,
  RemoteCadence,
  RemoteCompany,
  RemoteMembership,
  RemoteUser,
  SequenceAdapter,
} from '../../port.ts';
import { createVendorHttp, defaultRateLimitWait, VendorAuthError, VendorError } from '../../vendor-http.ts';
import type { RetryPolicy } from '../../vendor-http.ts';
import { apolloAdFields } from './ad-fields.ts';
import { createContactScan, totalPages } from './contact-scan.ts';
import type { ApolloContact, Pagination } from './contact-scan.ts';

/**
 * Apollo.io as a sequence source (integrations/API-NOTES.md §3): users from `users/search`, sequences
 * from `emailer_campaigns`, and enrolments read off contacts (`contact_campaign_statuses`), since
 * Apollo has no list of sequence states. Auth is a master API key in `x-api-key`.
 */

export const APOLLO_REVOKED_MESSAGE =
  'Apollo no longer accepts this API key. Enter a new master API key in Settings › Connections.';
export const APOLLO_MASTER_KEY_MESSAGE =
  'Apollo accepted this API key, but it is not a master key: sequences and users can only be read ' +
  'with a master API key. Create one in Apollo (Settings › Integrations › API) and enter it in ' +
  'Settings › Connections.';

const PER_PAGE = 100;
/**
 * Apollo's contact search stops at 500 pages of 100: "a display limit of 50,000 records (100 records
 * per page, up to 500 pages). Add more filters to narrow your search results" (Search for Contacts).
 */
const MAX_CONTACT_PAGES = 500;
/**
 * How often a sync reads every contact again. Apollo does not document that a contact's updated_at
 * moves when its sequence step (or status) moves, so reading only contacts updated since the last
 * sync may never see a step change (issue 40 item 5); a full pass bounds how stale a step can get.
 */
export const APOLLO_FULL_PASS_EVERY_MS = 6 * 3_600_000;
const DAY_MS = 86_400_000;
const WAIT_MODE_MS = { second: 1000, minute: 60_000, hour: 3_600_000, day: DAY_MS } as const;

type ApolloUser = {
  id: string;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
  title: string | null;
  deleted?: boolean | null;
};

type ApolloCampaign = {
  id: string;
  name: string;
  active: boolean;
  archived: boolean;
  user_id: string | null;
  created_at: string;
  last_used_at?: string | null;
};

type ApolloStep = { position: number; wait_time: number | null; wait_mode: string | null };

/**
 * Apollo sends no Retry-After: only how many calls are left in each fixed window. A window that ran
 * out resets within its own length, so we wait that long (a minute is the usual case; an exhausted
 * hour or day exceeds the policy's bound and ends the run instead of holding a worker).
 */
export function apolloRateLimitWait(res: Response, now: number): number | null {
  const hinted = defaultRateLimitWait(res, now);
  if (hinted !== null) return hinted;
  const exhausted = (window: string) => {
    const left = res.headers.get(`x-${window}-requests-left`);
    return left !== null && left !== '' && Number(left) <= 0;
  };
  if (exhausted('daily')) return DAY_MS;
  if (exhausted('hourly')) return 3_600_000;
  if (exhausted('minute')) return 60_000;
  return null;
}

/** Day (1-based) of each step position: 1 + whole days of the waits up to and including that step. */
export function stepDays(steps: ApolloStep[]): Map<number, number> {
  const days = new Map<number, number>();
  let waited = 0;
  for (const step of [...steps].sort((a, b) => a.position - b.position)) {
    const unit = WAIT_MODE_MS[(step.wait_mode ?? 'day') as keyof typeof WAIT_MODE_MS] ?? DAY_MS;
    waited += (step.wait_time ?? 0) * unit;
    days.set(step.position, 1 + Math.floor(waited / DAY_MS));
  }
  return days;
}

function cadenceStatus(c: ApolloCampaign): RemoteCadence['status'] {
  if (c.archived) return 'finished';
  if (c.active) return 'active';
  // Switched off: paused if it was ever used, otherwise still being written.
  return c.last_used_at ? 'paused' : 'draft';
}

function iso(time: string): string {
  return new Date(time).toISOString();
}

function company(contact: ApolloContact): RemoteCompany | null {
  const account = contact.account;
  const name = account?.name ?? contact.organization_name;
  if (!name) return null;
  const website = account?.website_url ?? (account?.domain ? `https://${account.domain}` : null);
  const id = account?.id ?? contact.account_id;
  // Contacts without an Apollo account still name their organisation: key those companies by name
  // so colleagues at the same organisation share one company.
  return { externalId: id ?? `name:${name.trim().toLowerCase()}`, name, website };
}

/** A sequence's detail; `missing` when `GET /emailer_campaigns/{id}` answered 404. */
type Campaign = { archived: boolean; days: Map<number, number>; missing?: true };

export const apolloMissingSequenceMessage = (name: string, id: string) =>
  `Apollo did not return the steps of the sequence "${name}" (404 on GET /emailer_campaigns/${id}) ` +
  'though it still lists it: Rally kept the sequence and its prospects as they were and reads them ' +
  'again on the next sync.';

export function createApolloAdapter(
  cfg: { apiUrl: string },
  opts: {
    retry?: Partial<RetryPolicy>;
    /** Pages the contact search serves at most (Apollo: 500); tests set the fake's cap. */
    maxSearchPages?: number;
    fullPassEveryMs?: number;
    now?: () => number;
  } = {},
): SequenceAdapter {
  const base = cfg.apiUrl.replace(/\/+$/, '');
  const maxPages = opts.maxSearchPages ?? MAX_CONTACT_PAGES;
  const fullPassEvery = opts.fullPassEveryMs ?? APOLLO_FULL_PASS_EVERY_MS;
  const now = opts.now ?? Date.now;
  const http = createVendorHttp({
    vendor: 'Apollo',
    retry: opts.retry,
    rateLimitWait: apolloRateLimitWait,
    authorize: (creds: Credentials) => {
      if (creds.kind !== 'api_key') throw new VendorAuthError(APOLLO_REVOKED_MESSAGE);
      return { 'x-api-key': creds.apiKey };
    },
    revokedMessage: APOLLO_REVOKED_MESSAGE,
  });

  /** An authenticated call; a 403 API_INACCESSIBLE means the key is not a master key. */
  async function call<T>(
    ctx: AdapterContext,
    method: 'GET' | 'POST',
    path: string,
    query: Record<string, string | number> = {},
    body?: unknown,
  ): Promise<T> {
    const url = new URL(`${base}${path}`);
    for (const [k, v] of Object.entries(query)) url.searchParams.set(k, String(v));
    try {
      return await http.request<T>(ctx, { method, url: url.toString(), body });
    } catch (err) {
      if (err instanceof VendorError && err.status === 403 && err.body.includes('API_INACCESSIBLE')) {
        throw new VendorAuthError(APOLLO_MASTER_KEY_MESSAGE);
      }
      throw err;
    }
  }

  /** Every sequence Apollo lists (id → name). */
  async function listedSequences(ctx: AdapterContext): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let page = 1; ; page++) {
      const reply = await call<{ emailer_campaigns: ApolloCampaign[]; pagination: Pagination }>(
        ctx,
        'POST',
        '/emailer_campaigns/search',
        { page, per_page: PER_PAGE },
      );
      for (const c of reply.emailer_campaigns) out.set(c.id, c.name);
      if (!reply.emailer_campaigns.length || page >= (totalPages(reply.pagination) ?? page)) return out;
    }
  }

  const contactScan = createContactScan({ call, maxPages });

  /** Sequences' archived flags and step days, each fetched once per run. */
  function campaignCache(ctx: AdapterContext) {
    const cache = new Map<string, Promise<Campaign>>();
    return (id: string): Promise<Campaign> => {
      let found = cache.get(id);
      if (!found) {
        found = call<{ emailer_campaign: ApolloCampaign; emailer_steps: ApolloStep[] }>(
          ctx,
          'GET',
          `/emailer_campaigns/${encodeURIComponent(id)}`,
        ).then(
          (r): Campaign => ({ archived: r.emailer_campaign.archived, days: stepDays(r.emailer_steps ?? []) }),
          (err: unknown): Campaign => {
            // Deleted, or this read (not in Apollo's published reference) failed: the caller decides.
            if (err instanceof VendorError && err.status === 404) {
              return { archived: false, days: new Map(), missing: true };
            }
            throw err;
          },
        );
        cache.set(id, found);
      }
      return found;
    };
  }

  return {
    source: 'apolloio',
    adFields: apolloAdFields(http, base),
    auth: 'api_key',

    async whoami(ctx) {
      // Both reads a sync needs require a master key; try each so a plain key fails here, clearly.
      const { users } = await call<{ users: ApolloUser[] }>(ctx, 'GET', '/users/search', {
        page: 1,
        per_page: PER_PAGE,
      });
      await call(ctx, 'POST', '/emailer_campaigns/search', { page: 1, per_page: 1 });
      // Apollo has no "who am I": name the team by its members' e-mail domain.
      const domains = new Map<string, number>();
      for (const u of users) {
        const domain = u.email?.split('@')[1]?.toLowerCase();
        if (domain && !u.deleted) domains.set(domain, (domains.get(domain) ?? 0) + 1);
      }
      const top = [...domains].sort((a, b) => b[1] - a[1])[0];
      return { accountName: top ? `Apollo.io (${top[0]})` : 'Apollo.io' };
    },

    // Apollo users carry no update time and their `deleted` flag can change at any moment, so every
    // sync reads them all (teams are small): `since` cannot narrow this safely.
    async *users(ctx, _since) {
      for (let page = 1; ; page++) {
        const reply = await call<{ users: ApolloUser[]; pagination: Pagination }>(
          ctx,
          'GET',
          '/users/search',
          {
            page,
            per_page: PER_PAGE,
          },
        );
        const items: RemoteUser[] = reply.users.map((u) => ({
          externalId: u.id,
          firstName: u.first_name ?? '',
          lastName: u.last_name ?? '',
          email: u.email,
          title: u.title ?? '',
          isActive: !u.deleted,
          updatedAt: null,
        }));
        const pages = totalPages(reply.pagination);
        yield { items, totalPages: pages };
        if (!reply.users.length || page >= (pages ?? page)) return;
      }
    },

    // Sequences have no update time either, and editing a step changes nothing on the sequence:
    // read them all, with their steps, every time.
    async *cadences(ctx, _since) {
      const campaign = campaignCache(ctx);
      for (let page = 1; ; page++) {
        const reply = await call<{ emailer_campaigns: ApolloCampaign[]; pagination: Pagination }>(
          ctx,
          'POST',
          '/emailer_campaigns/search',
          { page, per_page: PER_PAGE },
        );
        const items: RemoteCadence[] = [];
        for (const c of reply.emailer_campaigns) {
          const detail = await campaign(c.id);
          // Listed but its steps would not come: keep it (no days: the stored ones stay) and say so.
          if (detail.missing) ctx.warn?.(apolloMissingSequenceMessage(c.name, c.id));
          items.push({
            externalId: c.id,
            name: c.name,
            status: cadenceStatus(c),
            ownerExternalId: c.user_id,
            days: [...new Set(detail.days.values())].sort((a, b) => a - b),
            updatedAt: iso(c.last_used_at ?? c.created_at),
          });
        }
        const pages = totalPages(reply.pagination);
        yield { items, totalPages: pages };
        if (!reply.emailer_campaigns.length || page >= (pages ?? page)) return;
      }
    },

    /*
     * Apollo's contact search has no updated-since filter, only a sort on contact_updated_at. An
     * incremental sync reads it newest first and stops at the first contact not newer than `since`:
     * - it reads only the pages that changed, not every contact again;
     * - a contact changed while we page moves to the front (already read): later pages shift by one
     *   and repeat a contact (dropped below) instead of skipping one, and the moved contact, now newer
     *   than anything we return, comes with the next sync.
     * Apollo does not say that a step change moves updated_at, so every APOLLO_FULL_PASS_EVERY_MS (and
     * on the first sync, and when more contacts changed than the search shows) every contact is read
     * (readAllContacts: past the 50,000 cap by reading from both ends and by contact stage). The
     * contacts are held in memory until the scan ends and handed over oldest first.
     */
    async *memberships(ctx, since, opts = {}) {
      const startedAt = new Date(now()).toISOString();
      const last = opts.lastFullPass ? Date.parse(opts.lastFullPass) : NaN;
      const due = !(now() - last < fullPassEvery);
      const incremental = since && !due ? await contactScan.changed(ctx, since) : null;
      const full = !incremental;
      const changed = incremental ?? (await contactScan.all(ctx));

      const campaign = campaignCache(ctx);
      const mailboxOwners = new Map<string, string>();
      if (changed.size) {
        const { email_accounts } = await call<{ email_accounts: { id: string; user_id: string }[] }>(
          ctx,
          'GET',
          '/email_accounts',
        );
        for (const a of email_accounts) mailboxOwners.set(a.id, a.user_id);
      }

      let listed: Promise<Map<string, string>> | undefined;
      const memberships: RemoteMembership[] = [];
      const oldestFirst = [...changed.values()].sort(
        (a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id.localeCompare(b.id),
      );
      for (const contact of oldestFirst) {
        const prospect = {
          externalId: contact.id,
          firstName: contact.first_name ?? '',
          lastName: contact.last_name ?? '',
          email: contact.email,
          title: contact.title ?? '',
          company: company(contact),
          updatedAt: iso(contact.updated_at),
        };
        for (const s of contact.contact_campaign_statuses ?? []) {
          if (opts.cadenceExternalId && s.emailer_campaign_id !== opts.cadenceExternalId) continue;
          const detail = await campaign(s.emailer_campaign_id);
          if (detail.missing) {
            // Deleted (no longer listed): its enrolments have nowhere to go. Still listed: its steps
            // would not come; leave the membership as stored and say so (the next sync reads it again).
            listed ??= listedSequences(ctx);
            const name = (await listed).get(s.emailer_campaign_id);
            if (name !== undefined) ctx.warn?.(apolloMissingSequenceMessage(name, s.emailer_campaign_id));
            continue;
          }
          const position = s.current_step_position ?? 1;
          const lastDay = Math.max(1, ...detail.days.values());
          memberships.push({
            externalId: s.id,
            cadenceExternalId: s.emailer_campaign_id,
            prospect,
            // The rep whose mailbox sends the steps works the prospect; else whoever enrolled them.
            userExternalId:
              (s.send_email_from_email_account_id && mailboxOwners.get(s.send_email_from_email_account_id)) ||
              s.added_by_user_id ||
              contact.owner_id,
            dayNumber: detail.days.get(position) ?? (position > detail.days.size ? lastDay : 1),
            // "active" inside an archived sequence is dead (API-NOTES.md §3).
            isActive: s.status === 'active' && !detail.archived,
            contacted: position > 1 || s.status === 'finished' || s.status === 'bounced',
            updatedAt: iso(contact.updated_at),
          });
        }
      }

      const pages = Math.max(1, Math.ceil(memberships.length / PER_PAGE));
      for (let i = 0; i < pages; i++) {
        const page: Page<RemoteMembership> = {
          items: memberships.slice(i * PER_PAGE, (i + 1) * PER_PAGE),
          totalPages: pages,
          // The last page ends a full pass: the engine stores when it began.
          ...(full && i === pages - 1 ? { fullPass: startedAt } : {}),
        };
        yield page;
      }
    },
  };
}
