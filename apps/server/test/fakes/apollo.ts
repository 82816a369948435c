import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An in-repo Apollo.io API on loopback for adapter, API and end-to-end tests (ARCHITECTURE.md §7),
 * built from the facts in integrations/API-NOTES.md §3: `x-api-key` auth with master and plain keys,
 * 24-hex ids, page numbers echoed back as strings, per_page capped at 100, contact search capped at
 * 500 pages, and fixed minute/hour/day rate-limit windows per endpoint with Apollo's headers.
 *
 * Its clock can be moved forward (`clock.advance`) so that a test's `sleep` can wait out a rate-limit
 * window without waiting for real.
 */

export type ApolloUser = {
  id: string;
  team_id: string;
  first_name: string;
  last_name: string;
  email: string;
  title: string | null;
  created_at: string;
  deleted: boolean;
};

export type ApolloWaitMode = 'second' | 'minute' | 'hour' | 'day';

export type ApolloStep = {
  id: string;
  emailer_campaign_id: string;
  position: number;
  type: 'auto_email' | 'manual_email' | 'call' | 'action_item' | 'linkedin_step_message';
  wait_time: number;
  wait_mode: ApolloWaitMode;
  exact_datetime: string | null;
  note: string | null;
};

export type ApolloSequence = {
  id: string;
  name: string;
  active: boolean;
  archived: boolean;
  created_at: string;
  last_used_at: string | null;
  user_id: string | null;
  label_ids: string[];
  steps: ApolloStep[];
};

export type ApolloAccount = { id: string; name: string; domain: string | null };

export type ApolloCampaignStatusValue = 'active' | 'paused' | 'finished' | 'failed' | 'bounced';

export type ApolloCampaignStatus = {
  id: string;
  emailer_campaign_id: string;
  status: ApolloCampaignStatusValue;
  current_step_id: string | null;
  current_step_position: number | null;
  added_at: string;
  added_by_user_id: string | null;
  send_email_from_email_account_id: string | null;
  finished_at: string | null;
  paused_at: string | null;
  inactive_reason: string | null;
};

export type ApolloContact = {
  id: string;
  first_name: string;
  last_name: string;
  title: string | null;
  email: string | null;
  organization_name: string | null;
  account_id: string | null;
  owner_id: string | null;
  contact_stage_id: string | null;
  created_at: string;
  updated_at: string;
  contact_campaign_statuses: ApolloCampaignStatus[];
  /** Custom field values by the typed custom field's id. */
  typed_custom_fields: Record<string, string>;
};

/** A custom field (Apollo's `POST /fields`): `type` string or textarea can hold a URL. */
export type ApolloCustomField = {
  id: string;
  label: string;
  modality: 'contact' | 'account' | 'opportunity';
  type: 'string' | 'textarea' | 'number' | 'date' | 'datetime' | 'boolean';
  max_length: number;
};

export type ApolloEmailAccount = { id: string; user_id: string; email: string; active: boolean };

/** A contact stage ("List Contact Stages": `contact_stages[]{id, team_id, name, display_name, display_order, category}`). */
export type ApolloContactStage = { id: string; name: string; display_order: number; category: string };

export type UserSpec = Partial<ApolloUser> & { first_name: string; last_name: string };
export type StepSpec = Partial<Omit<ApolloStep, 'emailer_campaign_id' | 'position'>> & { wait_time: number };
export type SequenceSpec = Partial<Omit<ApolloSequence, 'steps'>> & { name: string; steps?: StepSpec[] };
export type CampaignStatusSpec = Partial<ApolloCampaignStatus> & { emailer_campaign_id: string };
export type ContactSpec = Partial<
  Omit<ApolloContact, 'contact_campaign_statuses' | 'typed_custom_fields'>
> & {
  first_name: string;
  last_name: string;
  contact_campaign_statuses?: CampaignStatusSpec[];
};

export type RateLimits = { minute: number; hourly: number; daily: number };

/** Approximate per-endpoint limits of Apollo's plans (they change; tests set their own). */
export const APOLLO_PLANS = {
  free: { minute: 50, hourly: 100, daily: 600 },
  basic: { minute: 200, hourly: 400, daily: 2000 },
  professional: { minute: 200, hourly: 2000, daily: 10_000 },
} satisfies Record<string, RateLimits>;

export type ApolloRequestLog = {
  method: string;
  /** Below the API base, e.g. `/contacts/search`. */
  path: string;
  query: Record<string, string>;
  body: unknown;
  apiKey: string | null;
  /** The status answered (0 until the answer is sent). */
  status: number;
  /** The JSON or text answered. */
  response: unknown;
};

export type StartFakeApolloOptions = {
  plan?: keyof typeof APOLLO_PLANS;
  /** Overrides the plan's limits. */
  limits?: Partial<RateLimits>;
  /** Start of the fake's clock (ms since epoch); default now. */
  now?: number;
  /** Seed the demo dataset (`seedDemo`). */
  demo?: boolean;
  /**
   * Pages the contact search serves at most (Apollo: 500 of 100, "a display limit of 50,000
   * records"); tests set fewer to reach the cap with few contacts.
   */
  searchPageCap?: number;
};

export type FakeApollo = Awaited<ReturnType<typeof startFakeApollo>>;

const MAX_PER_PAGE = 100;
const MAX_SEARCH_PAGES = 500;
const SORT_FIELDS = { contact_updated_at: 'updated_at', contact_created_at: 'created_at' } as const;
const WINDOWS = [
  { name: 'minute', header: 'minute', limitHeader: 'x-rate-limit-minute', ms: 60_000, per: 'minute' },
  { name: 'hourly', header: 'hourly', limitHeader: 'x-rate-limit-hourly', ms: 3_600_000, per: 'hour' },
  { name: 'daily', header: 'daily', limitHeader: 'x-rate-limit-daily', ms: 86_400_000, per: 'day' },
] as const;

type Route = {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** Rate-limit bucket, as Apollo names it in its 429 text. */
  endpoint: string;
  master: boolean;
  handle: (params: Params, match: RegExpMatchArray) => Answer;
};
type Params = Record<string, unknown>;
type Answer = { status: number; json: unknown };

class HttpError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

export async function startFakeApollo(opts: StartFakeApolloOptions = {}) {
  let offset = (opts.now ?? Date.now()) - Date.now();
  let last = 0;
  const clock = {
    now: () => Date.now() + offset,
    /** Moves the fake's time forward (rate-limit windows, timestamps of later changes). */
    advance(ms: number) {
      offset += ms;
    },
  };
  /** A strictly increasing timestamp, so every change sorts after the one before. */
  const tick = () => {
    last = Math.max(clock.now(), last + 1);
    return new Date(last).toISOString();
  };

  const machine = randomBytes(5).toString('hex');
  let counter = randomBytes(3).readUIntBE(0, 3);
  /** Mongo ObjectId-like 24-hex ids, as Apollo's. */
  const newId = () => {
    counter = (counter + 1) % 0xffffff;
    const seconds = Math.floor(clock.now() / 1000)
      .toString(16)
      .padStart(8, '0');
    return seconds + machine + counter.toString(16).padStart(6, '0');
  };

  const teamId = newId();
  const masterKey = randomBytes(16).toString('base64url');
  const plainKey = randomBytes(16).toString('base64url');
  const keys = new Map<string, { master: boolean }>([
    [masterKey, { master: true }],
    [plainKey, { master: false }],
  ]);

  const users = new Map<string, ApolloUser>();
  const sequences = new Map<string, ApolloSequence>();
  const accounts = new Map<string, ApolloAccount>();
  const contacts = new Map<string, ApolloContact>();
  const emailAccounts = new Map<string, ApolloEmailAccount>();
  const customFields = new Map<string, ApolloCustomField>();
  const contactStages = new Map<string, ApolloContactStage>();
  /** Sequences whose `GET /emailer_campaigns/{id}` answers 404 though the search lists them. */
  const hiddenDetails = new Set<string>();
  let searchPageCap = opts.searchPageCap ?? MAX_SEARCH_PAGES;

  let limits: RateLimits = { ...APOLLO_PLANS[opts.plan ?? 'professional'], ...opts.limits };
  const usage = new Map<string, Record<'minute' | 'hourly' | 'daily', { window: number; count: number }>>();
  const failures: { status: number; body?: string }[] = [];
  const requests: ApolloRequestLog[] = [];
  let onRequest: ((log: ApolloRequestLog) => void) | null = null;
  /** Requests to a path from its `n`th on wait unanswered until released (crash tests). */
  let hold: {
    path: string;
    after: number;
    seen: number;
    gate: Promise<void> | null;
    open: () => void;
  } | null = null;
  let held = 0;

  // ---- seeding and changes -------------------------------------------------------------------

  function addUser(spec: UserSpec): ApolloUser {
    const user: ApolloUser = {
      id: newId(),
      team_id: teamId,
      email: `${spec.first_name}.${spec.last_name}@example.com`.toLowerCase(),
      title: null,
      created_at: tick(),
      deleted: false,
      ...spec,
    };
    users.set(user.id, user);
    return user;
  }

  function buildSteps(sequenceId: string, specs: StepSpec[]): ApolloStep[] {
    return specs.map((s, i) => ({
      id: newId(),
      type: 'auto_email',
      wait_mode: 'day',
      exact_datetime: null,
      note: null,
      ...s,
      emailer_campaign_id: sequenceId,
      position: i + 1,
    }));
  }

  function addSequence(spec: SequenceSpec): ApolloSequence {
    const id = spec.id ?? newId();
    const { steps, ...rest } = spec;
    const sequence: ApolloSequence = {
      active: true,
      archived: false,
      created_at: tick(),
      last_used_at: null,
      user_id: null,
      label_ids: [],
      ...rest,
      id,
      steps: buildSteps(id, steps ?? [{ wait_time: 0 }]),
    };
    sequences.set(id, sequence);
    return sequence;
  }

  function addAccount(spec: Partial<ApolloAccount> & { name: string }): ApolloAccount {
    const account: ApolloAccount = { id: newId(), domain: null, ...spec };
    accounts.set(account.id, account);
    return account;
  }

  function addEmailAccount(spec: Partial<ApolloEmailAccount> & { user_id: string }): ApolloEmailAccount {
    const user = users.get(spec.user_id);
    const account: ApolloEmailAccount = { id: newId(), email: user?.email ?? '', active: true, ...spec };
    emailAccounts.set(account.id, account);
    return account;
  }

  /** Fills a campaign status's ids and derived fields as Apollo would. */
  function normaliseStatus(spec: CampaignStatusSpec, at: string): ApolloCampaignStatus {
    const sequence = sequences.get(spec.emailer_campaign_id);
    if (!sequence) throw new Error(`fake Apollo: no sequence ${spec.emailer_campaign_id}`);
    const status: ApolloCampaignStatus = {
      id: newId(),
      added_at: at,
      added_by_user_id: sequence.user_id,
      send_email_from_email_account_id: null,
      finished_at: null,
      paused_at: null,
      inactive_reason: null,
      current_step_id: null,
      ...spec,
      status: spec.status ?? 'active',
      current_step_position: spec.current_step_position === undefined ? 1 : spec.current_step_position,
    };
    status.current_step_id =
      sequence.steps.find((s) => s.position === status.current_step_position)?.id ?? null;
    if (status.status === 'finished') status.finished_at ??= at;
    if (status.status === 'paused') status.paused_at ??= at;
    sequence.last_used_at = at;
    return status;
  }

  function addContact(spec: ContactSpec): ApolloContact {
    const at = spec.updated_at ?? tick();
    const { contact_campaign_statuses: statuses, ...rest } = spec;
    const contact: ApolloContact = {
      id: newId(),
      title: null,
      email: `${spec.first_name}.${spec.last_name}@prospect.example`.toLowerCase(),
      organization_name: rest.account_id ? (accounts.get(rest.account_id)?.name ?? null) : null,
      account_id: null,
      owner_id: null,
      contact_stage_id: null,
      created_at: at,
      updated_at: at,
      ...rest,
      contact_campaign_statuses: (statuses ?? []).map((s) => normaliseStatus(s, s.added_at ?? at)),
      typed_custom_fields: {},
    };
    contacts.set(contact.id, contact);
    return contact;
  }

  /** Apollo's `POST /fields` default text length is not documented; 255 here (the reply's text_field_max_length). */
  function addCustomField(spec: Omit<ApolloCustomField, 'id' | 'max_length'> & { max_length?: number }) {
    const field: ApolloCustomField = { id: newId(), max_length: 255, ...spec };
    customFields.set(field.id, field);
    return field;
  }

  function mustGet<T>(map: Map<string, T>, id: string, what: string): T {
    const found = map.get(id);
    if (!found) throw new Error(`fake Apollo: no ${what} ${id}`);
    return found;
  }

  /** Changes a contact as a user or Apollo's scheduler would; bumps its updated_at. */
  function updateContact(id: string, change: (contact: ApolloContact) => void): ApolloContact {
    const contact = mustGet(contacts, id, 'contact');
    change(contact);
    contact.updated_at = tick();
    return contact;
  }

  /**
   * Enrols the contact in a sequence or changes its status or step there, as Apollo's scheduler does
   * when a step is sent. The contact's updated_at does NOT move: Apollo's reference ("Search for
   * Contacts", "View a Contact" in test/vendor-specs/apollo-2026-12-05.json) documents updated_at
   * and a sort on it, but nowhere says that a change of a contact_campaign_status (enrolment, step,
   * status) touches it, so the fake assumes the strictest case (issue 40 item 5).
   */
  function setCampaignStatus(
    contactId: string,
    sequenceId: string,
    patch: Omit<CampaignStatusSpec, 'emailer_campaign_id'>,
  ): ApolloCampaignStatus {
    const contact = mustGet(contacts, contactId, 'contact');
    const list = contact.contact_campaign_statuses;
    const index = list.findIndex((s) => s.emailer_campaign_id === sequenceId);
    // An existing enrolment keeps its id; a new one gets its own.
    const result = normaliseStatus({ ...list[index], ...patch, emailer_campaign_id: sequenceId }, tick());
    if (index < 0) list.push(result);
    else list[index] = result;
    return result;
  }

  function addContactStage(spec: Partial<ApolloContactStage> & { name: string }): ApolloContactStage {
    const stage: ApolloContactStage = {
      id: newId(),
      display_order: contactStages.size,
      category: 'in_progress',
      ...spec,
    };
    contactStages.set(stage.id, stage);
    return stage;
  }

  function updateSequence(id: string, change: (sequence: ApolloSequence) => void): ApolloSequence {
    const sequence = mustGet(sequences, id, 'sequence');
    change(sequence);
    return sequence;
  }

  function updateUser(id: string, change: (user: ApolloUser) => void): ApolloUser {
    const user = mustGet(users, id, 'user');
    change(user);
    return user;
  }

  function seed(data: {
    users?: UserSpec[];
    sequences?: SequenceSpec[];
    accounts?: (Partial<ApolloAccount> & { name: string })[];
    contacts?: ContactSpec[];
  }) {
    return {
      users: (data.users ?? []).map(addUser),
      sequences: (data.sequences ?? []).map(addSequence),
      accounts: (data.accounts ?? []).map(addAccount),
      contacts: (data.contacts ?? []).map(addContact),
    };
  }

  // ---- serialisation -------------------------------------------------------------------------

  const userJson = (u: ApolloUser) => ({ ...u, name: `${u.first_name} ${u.last_name}`.trim() });

  function sequenceJson(s: ApolloSequence) {
    const counts = { active: 0, paused: 0, finished: 0, bounced: 0, failed: 0 };
    for (const c of contacts.values()) {
      for (const st of c.contact_campaign_statuses) if (st.emailer_campaign_id === s.id) counts[st.status]++;
    }
    const { steps, ...rest } = s;
    return {
      ...rest,
      num_steps: steps.length,
      permissions: 'team_can_use',
      emailer_schedule_id: null,
      max_emails_per_day: null,
      unique_scheduled: counts.active,
      unique_delivered: 0,
      unique_bounced: counts.bounced,
      unique_opened: 0,
      unique_replied: 0,
      contact_statuses: counts,
    };
  }

  function contactJson(c: ApolloContact) {
    const account = c.account_id ? accounts.get(c.account_id) : undefined;
    return {
      ...c,
      name: `${c.first_name} ${c.last_name}`.trim(),
      organization_id: null,
      email_status: c.email ? 'verified' : null,
      label_ids: [],
      emailer_campaign_ids: c.contact_campaign_statuses.map((s) => s.emailer_campaign_id),
      account: account
        ? {
            id: account.id,
            name: account.name,
            domain: account.domain,
            website_url: account.domain ? `http://www.${account.domain}` : null,
          }
        : null,
    };
  }

  // ---- request handling ----------------------------------------------------------------------

  function intParam(params: Params, name: string, fallback: number): number {
    const value = params[name];
    if (value === undefined || value === null || value === '') return fallback;
    const n = Number(value);
    if (!Number.isInteger(n)) throw new HttpError(422, `${name} must be an integer`);
    return n;
  }

  function paginate<T>(items: T[], params: Params, maxPages?: number) {
    // Apollo: "100 records per page, up to 500 pages" (Search for Contacts): past the last page
    // allowed, an error; total_entries still counts every match.
    const page = intParam(params, 'page', 1);
    const perPage = Math.min(MAX_PER_PAGE, intParam(params, 'per_page', 25));
    if (page < 1) throw new HttpError(422, 'page must be at least 1');
    if (perPage < 1) throw new HttpError(422, 'per_page must be at least 1');
    if (maxPages && page > maxPages) {
      throw new HttpError(
        422,
        `Search results are limited to ${maxPages} pages (${maxPages * MAX_PER_PAGE} records); refine your filters.`,
      );
    }
    return {
      slice: items.slice((page - 1) * perPage, page * perPage),
      // Apollo echoes page and per_page as strings (API-NOTES.md §3).
      pagination: {
        page: String(page),
        per_page: String(perPage),
        total_entries: items.length,
        total_pages: Math.ceil(items.length / perPage),
      },
    };
  }

  function asBool(value: unknown): boolean | undefined {
    if (value === true || value === 'true') return true;
    if (value === false || value === 'false') return false;
    if (value === undefined || value === null || value === '') return undefined;
    throw new HttpError(422, 'sort_ascending must be true or false');
  }

  function searchContacts(params: Params): Answer {
    let list = [...contacts.values()];
    const keywords = typeof params.q_keywords === 'string' ? params.q_keywords.toLowerCase().trim() : '';
    if (keywords) {
      list = list.filter((c) =>
        [c.first_name, c.last_name, c.email, c.organization_name, c.title].some((v) =>
          v?.toLowerCase().includes(keywords),
        ),
      );
    }
    if (Array.isArray(params.contact_stage_ids) && params.contact_stage_ids.length) {
      const stages = new Set(params.contact_stage_ids);
      list = list.filter((c) => c.contact_stage_id && stages.has(c.contact_stage_id));
    }
    const sortBy = params.sort_by_field ?? 'contact_created_at';
    if (typeof sortBy !== 'string' || !(sortBy in SORT_FIELDS)) {
      throw new HttpError(422, `sort_by_field must be one of ${Object.keys(SORT_FIELDS).join(', ')}`);
    }
    const field = SORT_FIELDS[sortBy as keyof typeof SORT_FIELDS];
    const direction = asBool(params.sort_ascending) ? 1 : -1;
    list.sort(
      (a, b) => direction * (Date.parse(a[field]) - Date.parse(b[field]) || a.id.localeCompare(b.id)),
    );
    // "To protect Apollo's performance for all users, this endpoint has a display limit of 50,000
    // records (100 records per page, up to 500 pages). Add more filters to narrow your search
    // results" (Search for Contacts): pages past the cap are refused.
    const { slice, pagination } = paginate(list, params, searchPageCap);
    return {
      status: 200,
      json: {
        breadcrumbs: [],
        partial_results_only: false,
        disable_eu_prospecting: false,
        partial_results_limit: searchPageCap * MAX_PER_PAGE,
        pagination,
        contacts: slice.map(contactJson),
        num_fetch_result: null,
      },
    };
  }

  const routes: Route[] = [
    ...customFieldRoutes(),
    {
      method: 'POST',
      pattern: /^\/emailer_campaigns\/search$/,
      endpoint: 'api/v1/emailer_campaigns/search',
      master: true,
      handle(params) {
        const q = typeof params.q_name === 'string' ? params.q_name.toLowerCase().trim() : '';
        const list = [...sequences.values()]
          .filter((s) => !q || s.name.toLowerCase().includes(q))
          .sort((a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || a.id.localeCompare(b.id));
        const { slice, pagination } = paginate(list, params);
        return {
          status: 200,
          json: { breadcrumbs: [], pagination, emailer_campaigns: slice.map(sequenceJson) },
        };
      },
    },
    {
      method: 'GET',
      pattern: /^\/emailer_campaigns\/([0-9a-f]{24})$/,
      endpoint: 'api/v1/emailer_campaigns',
      master: true,
      handle(_params, match) {
        const sequence = sequences.get(match[1]!);
        // This read is not in Apollo's published reference (API-NOTES.md §8 question 3): a 404 may
        // come for a sequence the search still lists (hideSequenceDetail).
        if (!sequence || hiddenDetails.has(sequence.id))
          throw new HttpError(404, 'Emailer campaign not found');
        return {
          status: 200,
          json: {
            emailer_campaign: sequenceJson(sequence),
            emailer_steps: sequence.steps,
            emailer_touches: [],
            emailer_templates: [],
          },
        };
      },
    },
    {
      method: 'POST',
      pattern: /^\/contacts\/search$/,
      endpoint: 'api/v1/contacts/search',
      master: false,
      handle: searchContacts,
    },
    {
      method: 'GET',
      pattern: /^\/contacts\/([0-9a-f]{24})$/,
      endpoint: 'api/v1/contacts',
      master: false,
      handle(_params, match) {
        const contact = contacts.get(match[1]!);
        if (!contact) throw new HttpError(404, 'Contact not found');
        return { status: 200, json: { contact: contactJson(contact) } };
      },
    },
    {
      method: 'GET',
      pattern: /^\/users\/search$/,
      endpoint: 'api/v1/users/search',
      master: true,
      handle(params) {
        const list = [...users.values()].sort(
          (a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id.localeCompare(b.id),
        );
        const { slice, pagination } = paginate(list, params);
        return { status: 200, json: { pagination, users: slice.map(userJson) } };
      },
    },
    {
      // "List Contact Stages" (GET /contact_stages, `api/v1/contact_stages/index` or a master key).
      method: 'GET',
      pattern: /^\/contact_stages$/,
      endpoint: 'api/v1/contact_stages/index',
      master: false,
      handle: () => ({
        status: 200,
        json: {
          contact_stages: [...contactStages.values()].map((s) => ({
            ...s,
            team_id: teamId,
            display_name: s.name,
            ignore_trigger_override: null,
            is_meeting_set: null,
          })),
        },
      }),
    },
    {
      method: 'GET',
      pattern: /^\/email_accounts$/,
      endpoint: 'api/v1/email_accounts',
      master: false,
      handle: () => ({ status: 200, json: { email_accounts: [...emailAccounts.values()] } }),
    },
  ];

  /**
   * The ad fields' calls (issue 38), from Apollo's OpenAPI (test/vendor-specs/apollo): `GET /fields`
   * (`source` system, custom or crm_synced; custom fields' ids as `{modality}.{id}`), `POST /fields`
   * (`label`, `modality` contact/account/opportunity, `type` string/textarea/number/date/datetime/
   * boolean, `meta.max_length`) and `POST /contacts/bulk_update` ("up to 1000 contacts per request;
   * more are rejected with a 422. 100 or fewer are processed synchronously and return the updated
   * contacts"; `contact_attributes[]{id, typed_custom_fields}`). Each needs its endpoint on the key
   * or a master key (403 API_INACCESSIBLE). [?] What an unknown custom field id, an unknown contact
   * or a value over the field's length do is not documented: here each is the documented "Update
   * Error" 422 (`error_details{contact_id, field, message}`), and nothing of the request is applied.
   */
  function customFieldRoutes(): Route[] {
    const fieldJson = (f: ApolloCustomField) => ({
      id: `${f.modality}.${f.id}`,
      label: f.label,
      field_name: f.label,
      modality: f.modality,
      type: f.type,
      source: 'custom',
      editable: true,
    });
    const MODALITIES = ['contact', 'account', 'opportunity'];
    const TYPES = ['string', 'textarea', 'number', 'date', 'datetime', 'boolean'];
    return [
      {
        method: 'GET',
        pattern: /^\/fields$/,
        endpoint: 'api/v1/fields/index',
        master: true,
        handle(params) {
          const source = params.source;
          if (source !== undefined && !['system', 'custom', 'crm_synced'].includes(String(source))) {
            throw new HttpError(422, 'source must be one of system, custom, crm_synced');
          }
          const list = source && source !== 'custom' ? [] : [...customFields.values()].map(fieldJson);
          return { status: 200, json: { fields: list } };
        },
      },
      {
        method: 'POST',
        pattern: /^\/fields$/,
        endpoint: 'api/v1/fields/create',
        master: true,
        handle(params) {
          const label = typeof params.label === 'string' ? params.label.trim() : '';
          if (!label) throw new HttpError(422, 'label is required');
          if (!MODALITIES.includes(String(params.modality))) throw new HttpError(422, 'modality is invalid');
          if (!TYPES.includes(String(params.type))) throw new HttpError(422, 'type is invalid');
          const meta = (params.meta ?? {}) as { max_length?: unknown };
          const field = addCustomField({
            label,
            modality: params.modality as ApolloCustomField['modality'],
            type: params.type as ApolloCustomField['type'],
            ...(typeof meta.max_length === 'number' ? { max_length: meta.max_length } : {}),
          });
          return {
            status: 200,
            json: {
              typed_custom_fields: [
                {
                  id: field.id,
                  name: field.label,
                  modality: field.modality,
                  text_field_max_length: field.max_length,
                },
              ],
            },
          };
        },
      },
      {
        method: 'POST',
        pattern: /^\/contacts\/bulk_update$/,
        endpoint: 'api/v1/contacts/bulk_update',
        master: true,
        handle(params) {
          const list = params.contact_attributes;
          if (!Array.isArray(list) && !Array.isArray(params.contact_ids)) {
            throw new HttpError(422, 'Please provide either contact_ids or contact_attributes');
          }
          const rows = (Array.isArray(list) ? list : []) as { id?: unknown; typed_custom_fields?: unknown }[];
          if (rows.length > 1000) throw new HttpError(422, 'Please limit your array to fewer than 1000.');
          const invalid = (contactId: unknown, field: string, message: string): Answer => ({
            status: 422,
            json: { error: 'Validation failed', error_details: { contact_id: contactId, field, message } },
          });
          for (const row of rows) {
            const contact = typeof row.id === 'string' ? contacts.get(row.id) : undefined;
            if (!contact) return invalid(row.id ?? null, 'id', 'Contact not found');
            for (const [key, value] of Object.entries(
              (row.typed_custom_fields ?? {}) as Record<string, unknown>,
            )) {
              const field = customFields.get(key);
              if (!field || field.modality !== 'contact') {
                return invalid(row.id, `typed_custom_fields.${key}`, 'Custom field not found');
              }
              if (value !== null && String(value).length > field.max_length) {
                return invalid(
                  row.id,
                  `typed_custom_fields.${key}`,
                  `is longer than ${field.max_length} characters`,
                );
              }
            }
          }
          for (const row of rows) {
            updateContact(row.id as string, (c) => {
              for (const [key, value] of Object.entries(
                (row.typed_custom_fields ?? {}) as Record<string, unknown>,
              )) {
                if (value === null || value === '') {
                  c.typed_custom_fields = Object.fromEntries(
                    Object.entries(c.typed_custom_fields).filter(([k]) => k !== key),
                  );
                } else c.typed_custom_fields = { ...c.typed_custom_fields, [key]: String(value) };
              }
            });
          }
          const updated = rows.map((r) => contactJson(contacts.get(r.id as string)!));
          if (rows.length > 100 || params.async === true) {
            const at = tick();
            return {
              status: 200,
              json: {
                entity_progress_job: {
                  id: newId(),
                  job_type: 'contact_bulk_update',
                  status: 'pending',
                  entity_ids: rows.map((r) => r.id),
                  created_at: at,
                  updated_at: at,
                },
              },
            };
          }
          return { status: 200, json: { contacts: updated } };
        },
      },
    ];
  }

  /** Counts the request in its endpoint's windows; returns the exhausted window, if any. */
  function meter(endpoint: string, headers: Record<string, string>) {
    const now = clock.now();
    let buckets = usage.get(endpoint);
    if (!buckets) {
      buckets = {
        minute: { window: 0, count: 0 },
        hourly: { window: 0, count: 0 },
        daily: { window: 0, count: 0 },
      };
      usage.set(endpoint, buckets);
    }
    for (const w of WINDOWS) {
      const window = Math.floor(now / w.ms);
      if (buckets[w.name].window !== window) buckets[w.name] = { window, count: 0 };
    }
    const exhausted = [...WINDOWS].reverse().find((w) => buckets[w.name].count >= limits[w.name]);
    if (!exhausted) for (const w of WINDOWS) buckets[w.name].count++;
    for (const w of WINDOWS) {
      const used = buckets[w.name].count;
      headers[w.limitHeader] = String(limits[w.name]);
      headers[`x-${w.header}-requests-left`] = String(Math.max(0, limits[w.name] - used));
      headers[`x-${w.header}-usage`] = String(used);
    }
    return exhausted;
  }

  const rateLimitText = (endpoint: string, window: (typeof WINDOWS)[number]) =>
    `The maximum number of api calls allowed for ${endpoint} is ${limits[window.name]} times per ${window.per}. ` +
    'Please upgrade your plan from https://app.apollo.io/#/settings/plans/upgrade.';

  async function readBody(req: IncomingMessage): Promise<{ raw: string; parsed: unknown }> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString('utf8');
    if (!raw) return { raw, parsed: undefined };
    const type = req.headers['content-type'] ?? '';
    if (type.includes('application/x-www-form-urlencoded')) {
      return { raw, parsed: Object.fromEntries(new URLSearchParams(raw)) };
    }
    if (!type.includes('application/json')) {
      throw new HttpError(415, 'Content-Type must be application/json');
    }
    try {
      return { raw, parsed: JSON.parse(raw) as unknown };
    } catch {
      throw new HttpError(400, 'The request body is not valid JSON');
    }
  }

  function send(
    res: ServerResponse,
    log: ApolloRequestLog | null,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, {
      'content-type':
        typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8',
      ...headers,
    });
    res.end(text);
    if (log) {
      log.status = status;
      // A copy as sent: later changes to the data must not rewrite the log.
      log.response = typeof body === 'string' ? body : (JSON.parse(text) as unknown);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    // Older clients use /v1 without the /api prefix (API-NOTES.md §3); both are served.
    const prefix = /^\/(?:api\/)?v1(?=\/)/.exec(url.pathname);
    if (!prefix) return send(res, null, 404, { error: 'Not Found' });
    const path = url.pathname.slice(prefix[0].length);
    const query = Object.fromEntries(url.searchParams);
    const header = req.headers['x-api-key'];
    const apiKey = typeof header === 'string' ? header : null;
    const log: ApolloRequestLog = {
      method: req.method ?? 'GET',
      path,
      query,
      body: undefined,
      apiKey,
      status: 0,
      response: undefined,
    };
    requests.push(log);
    try {
      const { parsed } = await readBody(req);
      log.body = parsed;
      onRequest?.(log);
      if (hold && path === hold.path && ++hold.seen >= hold.after) {
        hold.gate ??= new Promise<void>((resolve) => (hold!.open = resolve));
        held += 1;
        await hold.gate;
      }
      const failure = failures.shift();
      if (failure) {
        const headers: Record<string, string> = {};
        if (failure.status === 429) {
          const window = WINDOWS[0];
          headers[window.limitHeader] = String(limits.minute);
          headers['x-minute-requests-left'] = '0';
          headers['x-minute-usage'] = String(limits.minute);
          return send(res, log, 429, failure.body ?? rateLimitText(`api/v1${path}`, window), headers);
        }
        return send(
          res,
          log,
          failure.status,
          failure.body ?? { status: failure.status, error: 'Internal Server Error' },
        );
      }
      const params: Params = {
        ...query,
        ...(parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Params) : {}),
      };
      if ('api_key' in params) {
        return send(res, log, 422, {
          error: 'Passing api_key as a parameter is not supported. Send the key in the X-Api-Key header.',
        });
      }
      const key = apiKey ? keys.get(apiKey) : undefined;
      if (!key) return send(res, log, 401, 'Invalid access credentials.');
      let found: { route: Route; match: RegExpMatchArray } | undefined;
      for (const route of routes) {
        const match = route.method === req.method ? path.match(route.pattern) : null;
        if (match) found = { route, match };
      }
      if (!found) return send(res, log, 404, { error: 'Not Found' });
      const { route, match } = found;
      const headers: Record<string, string> = {};
      const exhausted = meter(route.endpoint, headers);
      if (exhausted) return send(res, log, 429, rateLimitText(route.endpoint, exhausted), headers);
      if (route.master && !key.master) {
        return send(
          res,
          log,
          403,
          {
            error:
              'api/v1/' +
              path.slice(1) +
              ' is not accessible with this api_key. Please use a master API key to access this endpoint.',
            error_code: 'API_INACCESSIBLE',
          },
          headers,
        );
      }
      const answer = route.handle(params, match);
      return send(res, log, answer.status, answer.json, headers);
    } catch (err) {
      if (err instanceof HttpError) {
        const body = err.status === 400 || err.status === 415 ? err.message : { error: err.message };
        return send(res, log, err.status, body);
      }
      return send(res, log, 500, { status: 500, error: 'Internal Server Error' });
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  // ---- demo dataset --------------------------------------------------------------------------

  /** A small, deterministic team for end-to-end runs: 3 reps, 3 sequences, 30 contacts. */
  function seedDemo() {
    let state = 0x5eed;
    const random = () => {
      // mulberry32: deterministic, so the demo looks the same on every run.
      state = (state + 0x6d2b79f5) | 0;
      let t = Math.imul(state ^ (state >>> 15), 1 | state);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;

    const reps = [
      addUser({ first_name: 'Dana', last_name: 'Whitfield', email: 'dana@northwind.example', title: 'SDR' }),
      addUser({ first_name: 'Marcus', last_name: 'Lee', email: 'marcus@northwind.example', title: 'SDR' }),
      addUser({ first_name: 'Priya', last_name: 'Raman', email: 'priya@northwind.example', title: 'AE' }),
    ];
    addUser({
      first_name: 'Tom',
      last_name: 'Archer',
      email: 'tom@northwind.example',
      title: 'SDR',
      deleted: true,
    });
    const mailboxes = reps.map((r) => addEmailAccount({ user_id: r.id }));

    const sequenceList = [
      addSequence({
        name: 'Q3 Outbound – VP Sales',
        user_id: reps[0]!.id,
        steps: [
          { wait_time: 0 },
          { wait_time: 2 },
          { wait_time: 1, type: 'call' },
          { wait_time: 3 },
          { wait_time: 4, type: 'linkedin_step_message' },
        ],
      }),
      addSequence({
        name: 'Inbound demo follow-up',
        user_id: reps[2]!.id,
        steps: [
          { wait_time: 30, wait_mode: 'minute' },
          { wait_time: 36, wait_mode: 'hour' },
          { wait_time: 2 },
        ],
      }),
      addSequence({
        name: 'Legacy nurture 2024',
        user_id: reps[1]!.id,
        active: false,
        archived: true,
        steps: [{ wait_time: 0 }, { wait_time: 7 }, { wait_time: 14 }],
      }),
    ];

    const companies = [
      ['Acme Analytics', 'acme-analytics.example'],
      ['Blue Harbor Logistics', 'blueharbor.example'],
      ['Cobalt Health', 'cobalthealth.example'],
      ['Delta Fintech', 'deltafin.example'],
      ['Evergreen Foods', 'evergreenfoods.example'],
      ['Fjord Robotics', 'fjordrobotics.example'],
      ['Granite Insurance', 'granite-ins.example'],
      ['Helios Energy', 'helios-energy.example'],
    ].map(([name, domain]) => addAccount({ name: name!, domain: domain! }));

    const firstNames = ['Ava', 'Ben', 'Chloe', 'Diego', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas'];
    const lastNames = [
      'Novak',
      'Okafor',
      'Park',
      'Quinn',
      'Rossi',
      'Silva',
      'Tanaka',
      'Usman',
      'Vega',
      'Weber',
    ];
    const titles = ['VP Sales', 'Head of RevOps', 'CRO', 'Sales Director', 'Marketing Manager', 'CFO'];
    const statuses: ApolloCampaignStatusValue[] = [
      'active',
      'active',
      'active',
      'paused',
      'finished',
      'bounced',
    ];

    const contactList: ApolloContact[] = [];
    for (let i = 0; i < 30; i++) {
      const company = companies[i % companies.length]!;
      const owner = pick(reps);
      const enrolments: CampaignStatusSpec[] = [];
      for (const sequence of sequenceList) {
        if (random() < (sequence.archived ? 0.2 : 0.55)) {
          const mailbox = pick(mailboxes);
          enrolments.push({
            emailer_campaign_id: sequence.id,
            status: sequence.archived ? 'active' : pick(statuses),
            current_step_position: 1 + Math.floor(random() * sequence.steps.length),
            added_by_user_id: owner.id,
            send_email_from_email_account_id: mailbox.id,
          });
        }
      }
      const first = firstNames[i % firstNames.length]!;
      const lastName = lastNames[(i * 7) % lastNames.length]!;
      contactList.push(
        addContact({
          first_name: first,
          last_name: lastName,
          title: pick(titles),
          email: `${first}.${lastName}@${company.domain}`.toLowerCase(),
          organization_name: company.name,
          account_id: company.id,
          owner_id: owner.id,
          contact_campaign_statuses: enrolments,
        }),
      );
    }
    return {
      users: [...users.values()],
      sequences: sequenceList,
      accounts: companies,
      contacts: contactList,
    };
  }

  if (opts.demo) seedDemo();

  return {
    apiUrl: `http://127.0.0.1:${port}/api/v1`,
    /** A master API key: reaches every endpoint. */
    masterKey,
    /** A plain API key: contacts yes, sequences and users no (403 API_INACCESSIBLE). */
    plainKey,
    teamId,
    clock,
    users,
    sequences,
    accounts,
    contacts,
    emailAccounts,
    /** Every request received, in order. */
    requests,
    addUser,
    addSequence,
    addAccount,
    addEmailAccount,
    addContact,
    addCustomField,
    customFields,
    addContactStage,
    contactStages,
    /** `GET /emailer_campaigns/{id}` answers 404 for this sequence though the search lists it (or again not). */
    hideSequenceDetail(id: string, hidden = true) {
      if (hidden) hiddenDetails.add(id);
      else hiddenDetails.delete(id);
    },
    /** The contact search's page cap (default 500: 50,000 records). */
    setSearchPageCap(pages: number) {
      searchPageCap = pages;
    },
    seed,
    seedDemo,
    updateContact,
    setCampaignStatus,
    updateSequence,
    updateUser,
    deleteContact: (id: string) => contacts.delete(id),
    newId,
    /** The next `n` requests answer `status` (a 429 comes with Apollo's rate-limit headers and text). */
    failNext(n: number, status: number, body?: string) {
      for (let i = 0; i < n; i++) failures.push({ status, body });
    },
    /** The key stops working (deleted in Apollo's settings): 401 from then on. */
    revokeKey(key: string = masterKey) {
      keys.delete(key);
    },
    /** A new key, e.g. after the user replaced a revoked one. */
    issueKey(master = true) {
      const key = randomBytes(16).toString('base64url');
      keys.set(key, { master });
      return key;
    },
    setLimits(next: Partial<RateLimits>) {
      limits = { ...limits, ...next };
    },
    /** From the `n`th request to `path` (below the API base) on, those requests wait until `release()`. */
    holdAfter(n: number, path: string) {
      hold = { path, after: n, seen: 0, gate: null, open: () => {} };
    },
    /** How many requests are waiting on the hold. */
    held: () => held,
    release() {
      hold?.open();
      hold = null;
    },
    /** Runs before each request is answered (e.g. to change data between two pages of a listing). */
    onRequest(listener: ((log: ApolloRequestLog) => void) | null) {
      onRequest = listener;
    },
    clearRequests() {
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
