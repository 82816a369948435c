import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A fake Salesloft on loopback: the accounts server (OAuth authorization code + refresh) and the REST
 * v2 API, as API-NOTES.md §1 and Salesloft's published spec describe them. It is strict where the
 * vendor is (Bearer token on every call, scopes, parameter ranges, per-team cost budget) so that an
 * adapter passing against it has a fair chance against the real thing. Tests seed data, change
 * records, inject failures and read the request log through the controls returned by
 * `startFakeSalesloft`.
 */

export const SALESLOFT_SCOPES = [
  'cadences:read',
  'people:read',
  'accounts:read',
  'team:read',
  'activities:read',
  'calls:read',
  'emails:read',
  'people:write',
] as const;

/** Salesloft's membership states (API-NOTES.md §1); the first four are "on the cadence". */
export const MEMBERSHIP_STATES = [
  'processing',
  'staged',
  'active',
  'scheduled',
  'completed',
  'removed',
  'removed_no_action',
  'reassigned',
  'archived',
] as const;
export type MembershipState = (typeof MEMBERSHIP_STATES)[number];
const ON_CADENCE = new Set<string>(['processing', 'staged', 'active', 'scheduled']);

export type CadenceState = 'draft' | 'active' | 'archived' | 'expired' | 'deleted';

export type MembershipCounts = {
  views: number;
  clicks: number;
  replies: number;
  calls: number;
  sent_emails: number;
  bounces: number;
};

/** Times are ISO 8601 strings (microseconds kept); omitted ones are "now" at seeding. */
export type SeedUser = {
  id?: number;
  first_name: string;
  last_name: string;
  email: string;
  active?: boolean;
  team_admin?: boolean;
  updated_at?: string;
};
export type SeedAccount = {
  id?: number;
  name: string;
  domain?: string | null;
  website?: string | null;
  owner_id?: number | null;
  updated_at?: string;
};
export type SeedPerson = {
  id?: number;
  first_name: string;
  last_name: string;
  email_address?: string | null;
  /**
   * The person's "Do Not Contact" flag. Salesloft's OpenAPI (test/vendor-specs/salesloft-2026-12-05.json,
   * people create/update `do_not_contact`: "Setting this to true will remove all associated people from
   * all active communications") and its Person record carry it as a boolean.
   */
  do_not_contact?: boolean;
  title?: string | null;
  account_id?: number | null;
  owner_id?: number | null;
  updated_at?: string;
};
/** `day` and `step_number` may be given as strings: some Salesloft replies carry them so. */
export type SeedStep = {
  id?: number;
  day: number | string;
  step_number?: number | string;
  type?: 'email' | 'phone' | 'integration' | 'other';
  name?: string;
  disabled?: boolean;
  updated_at?: string;
};
export type SeedCadence = {
  id?: number;
  name: string;
  owner_id?: number | null;
  current_state?: CadenceState;
  archived_at?: string | null;
  team_cadence?: boolean;
  updated_at?: string;
  steps?: SeedStep[];
};
export type SeedMembership = {
  id?: number;
  cadence_id: number;
  person_id: number;
  user_id?: number | null;
  current_state?: MembershipState;
  /** Where the person is: the first step on this day of the cadence… */
  day?: number;
  /** …or this step. Neither: not started (no latest action). */
  step_id?: number;
  counts?: Partial<MembershipCounts>;
  updated_at?: string;
};
export type FakeSalesloftSeed = {
  team?: { name: string };
  users?: SeedUser[];
  accounts?: SeedAccount[];
  people?: SeedPerson[];
  cadences?: SeedCadence[];
  memberships?: SeedMembership[];
  /** The team's custom fields (Settings › Custom Fields); `field_type` defaults to person. */
  customFields?: SeedCustomField[];
};
/** `value_type` text or date (a date field cannot hold a URL). */
export type SeedCustomField = {
  name: string;
  field_type?: 'person' | 'company' | 'opportunity';
  value_type?: 'text' | 'date';
};

export type LoggedRequest = {
  method: string;
  /** As requested, e.g. `/v2/cadence_memberships.json` or `/oauth/token`. */
  path: string;
  query: URLSearchParams;
  status: number;
};

export type StartFakeSalesloftOptions = {
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URIs (exact match). Default: any http URL on 127.0.0.1, localhost or [::1]. */
  redirectUris?: string[];
  /** Scopes the OAuth app was registered with; a request for others is refused. Default: all. */
  appScopes?: string[];
  /** Cost budget per minute for the team (Salesloft: 600). */
  rateLimitPerMinute?: number;
  /** The user who "signs in" at /oauth/authorize; default: the first team admin, else the first user. */
  authorizingUserId?: number;
  /**
   * The team's group visibility policy lets a non-admin list the whole team at /users (the API
   * definition: "Non Admin: Lists only your user, or all on team depending on group visibility
   * policy"). Default false: a non-admin sees only their own user.
   */
  nonAdminSeesTeam?: boolean;
  seed?: FakeSalesloftSeed;
};

type Kind = 'user' | 'account' | 'person' | 'cadence' | 'step' | 'membership';
type Row = { id: number; created_at: number; updated_at: number };
type UserRow = Row & Required<Omit<SeedUser, 'id' | 'updated_at'>> & { guid: string };
type AccountRow = Row & {
  name: string;
  domain: string | null;
  website: string | null;
  owner_id: number | null;
};
type PersonRow = Row & {
  first_name: string;
  last_name: string;
  email_address: string | null;
  do_not_contact: boolean;
  title: string | null;
  account_id: number | null;
  owner_id: number | null;
  last_completed_step_id: number | null;
  /** Values by custom field name; only the team's fields are kept. */
  custom_fields: Record<string, string>;
};
type CustomFieldRow = Row & { name: string; field_type: string; value_type: string };
type CadenceRow = Row & {
  name: string;
  owner_id: number | null;
  current_state: CadenceState;
  archived_at: number | null;
  team_cadence: boolean;
};
type StepRow = Row & {
  cadence_id: number;
  day: number | string;
  step_number: number | string;
  type: string;
  name: string;
  disabled: boolean;
};
type MembershipRow = Row & {
  cadence_id: number;
  person_id: number;
  user_id: number | null;
  current_state: MembershipState;
  latest_action_id: number | null;
  counts: MembershipCounts;
  added_at: number;
};
type ActionRow = Row & {
  person_id: number;
  cadence_id: number;
  step_id: number;
  user_id: number | null;
  type: string;
  status: string;
  due_on: number;
};

type AuthCode = {
  clientId: string;
  redirectUri: string;
  userId: number;
  scope: string[];
  expiresAt: number;
  used: boolean;
};
type TokenRow = {
  accessToken: string;
  refreshToken: string;
  userId: number;
  scope: string[];
  /** ms on the fake's clock */
  accessExpiresAt: number;
  refreshUsed: boolean;
  revoked: boolean;
};

export type TokenReply = {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
};

class HttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  headers: Record<string, string> = {};
  constructor(status: number, body: unknown) {
    super(`HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
  withHeaders(headers: Record<string, string>): this {
    this.headers = headers;
    return this;
  }
}
const fail = (status: number, error: string) => new HttpError(status, { error });

const TOKEN_TTL_SECONDS = 7200;
const CODE_TTL_MS = 10 * 60_000;
const MAX_IDS = 100;

/** What a page costs in Salesloft's per-minute budget (API-NOTES.md §1: deep pages cost more). */
export function pageCost(page: number): number {
  if (page <= 100) return 1;
  if (page <= 150) return 3;
  if (page <= 250) return 8;
  if (page <= 500) return 10;
  return 30;
}

/** "2024-05-01T10:00:00.123456Z" → microseconds since the epoch; null when unreadable. */
export function parseTime(value: string): number | null {
  const m =
    /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2})?)(?:\.(\d{1,9}))?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/i.exec(
      value.trim(),
    );
  if (!m) return null;
  let zone = (m[4] ?? 'Z').toUpperCase();
  if (zone !== 'Z') zone = zone.length === 3 ? `${zone}:00` : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
  const clock = m[2] ? (m[2].length === 5 ? `${m[2]}:00` : m[2]) : '00:00:00';
  const ms = Date.parse(`${m[1]}T${clock}${zone}`);
  if (!Number.isFinite(ms)) return null;
  return ms * 1000 + Number(((m[3] ?? '') + '000000').slice(0, 6));
}

/** Microseconds → Salesloft-style ISO time with six fractional digits. */
export function formatTime(us: number): string {
  const seconds = Math.floor(us / 1_000_000);
  const fraction = us - seconds * 1_000_000;
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}.${String(fraction).padStart(6, '0')}Z`;
}

export async function startFakeSalesloft(opts: StartFakeSalesloftOptions = {}) {
  const clientId = opts.clientId ?? 'fake-salesloft-client';
  const clientSecret = opts.clientSecret ?? 'fake-salesloft-secret';
  const appScopes = opts.appScopes ?? [...SALESLOFT_SCOPES];
  let rateLimitPerMinute = opts.rateLimitPerMinute ?? 600;
  const redirectUris = opts.redirectUris ? [...opts.redirectUris] : null;

  // The fake's clock: tests move it forward (e.g. from a retry policy's sleep) instead of waiting.
  let clockOffsetMs = 0;
  const nowMs = () => Date.now() + clockOffsetMs;
  let lastStamp = 0;
  /** A strictly increasing "now" in µs, so every change has its own updated_at. */
  const stamp = () => (lastStamp = Math.max(nowMs() * 1000, lastStamp + 1));

  const team = { id: 1, name: 'Fake Team', created_at: stamp(), updated_at: stamp() };
  const users = new Map<number, UserRow>();
  const accounts = new Map<number, AccountRow>();
  const people = new Map<number, PersonRow>();
  const cadences = new Map<number, CadenceRow>();
  const steps = new Map<number, StepRow>();
  const memberships = new Map<number, MembershipRow>();
  const actions = new Map<number, ActionRow>();
  const customFields = new Map<number, CustomFieldRow>();
  let nextCustomFieldId = 1;
  function addCustomField(f: SeedCustomField): CustomFieldRow {
    const at = stamp();
    const row: CustomFieldRow = {
      id: nextCustomFieldId++,
      name: f.name,
      field_type: f.field_type ?? 'person',
      value_type: f.value_type ?? 'text',
      created_at: at,
      updated_at: at,
    };
    customFields.set(row.id, row);
    return row;
  }
  /** Sorted copies of tables for listings, by table and sort order; every change drops them all. */
  const sortedListings = new Map<Map<number, Row>, Map<string, Row[]>>();
  const changed = () => sortedListings.clear();
  // Membership ids by person, so serialising a person does not scan every membership (large seeds).
  const membershipsOfPerson = new Map<number, Set<number>>();
  const nextId: Record<Kind | 'action', number> = {
    user: 1,
    account: 1,
    person: 1,
    cadence: 1,
    step: 1,
    membership: 1,
    action: 1,
  };
  const idFor = (kind: Kind | 'action', given: number | undefined) => {
    const id = given ?? nextId[kind];
    nextId[kind] = Math.max(nextId[kind], id + 1);
    return id;
  };
  const timeOf = (value: string | null | undefined, fallback: number) => {
    if (value === undefined || value === null) return fallback;
    const us = parseTime(value);
    if (us === null) throw new Error(`fake Salesloft: unreadable time ${JSON.stringify(value)}`);
    return us;
  };

  const codes = new Map<string, AuthCode>();
  const accessTokens = new Map<string, TokenRow>();
  const refreshTokens = new Map<string, TokenRow>();
  const requests: LoggedRequest[] = [];
  const injected: number[] = [];
  let budget = { window: -1, used: 0 };

  let origin = '';
  const href = (resource: string, id: number | null) =>
    id === null ? null : { id, _href: `${origin}/v2/${resource}/${id}` };

  // ---- data -------------------------------------------------------------------------------------

  function stepsOf(cadenceId: number) {
    return [...steps.values()]
      .filter((s) => s.cadence_id === cadenceId)
      .sort((a, b) => Number(a.day) - Number(b.day) || Number(a.step_number) - Number(b.step_number));
  }

  /** Puts a membership on a step: a new current action for it, and the step before as completed. */
  function placeMembership(m: MembershipRow, stepId: number | null, at: number) {
    if (stepId === null) {
      m.latest_action_id = null;
      return;
    }
    const step = steps.get(stepId);
    if (!step || step.cadence_id !== m.cadence_id) {
      throw new Error(`fake Salesloft: step ${stepId} is not in cadence ${m.cadence_id}`);
    }
    const action: ActionRow = {
      id: idFor('action', undefined),
      person_id: m.person_id,
      cadence_id: m.cadence_id,
      step_id: step.id,
      user_id: m.user_id,
      type: step.type,
      status: ON_CADENCE.has(m.current_state) ? 'in_progress' : 'completed',
      due_on: at,
      created_at: at,
      updated_at: at,
    };
    actions.set(action.id, action);
    m.latest_action_id = action.id;
    const ordered = stepsOf(m.cadence_id);
    const before = ordered[ordered.findIndex((s) => s.id === step.id) - 1];
    const person = people.get(m.person_id);
    if (person && before) person.last_completed_step_id = before.id;
  }

  function stepForDay(cadenceId: number, day: number): number {
    const step = stepsOf(cadenceId).find((s) => Number(s.day) === day);
    if (!step) throw new Error(`fake Salesloft: cadence ${cadenceId} has no step on day ${day}`);
    return step.id;
  }

  function seed(data: FakeSalesloftSeed) {
    changed();
    const ids = {
      users: [] as number[],
      accounts: [] as number[],
      people: [] as number[],
      cadences: [] as number[],
      steps: [] as number[],
      memberships: [] as number[],
    };
    if (data.team) team.name = data.team.name;
    for (const f of data.customFields ?? []) addCustomField(f);
    for (const u of data.users ?? []) {
      const at = stamp();
      const row: UserRow = {
        id: idFor('user', u.id),
        guid: randomBytes(16).toString('hex'),
        first_name: u.first_name,
        last_name: u.last_name,
        email: u.email,
        active: u.active ?? true,
        team_admin: u.team_admin ?? false,
        created_at: at,
        updated_at: timeOf(u.updated_at, at),
      };
      users.set(row.id, row);
      ids.users.push(row.id);
    }
    for (const a of data.accounts ?? []) {
      const at = stamp();
      const row: AccountRow = {
        id: idFor('account', a.id),
        name: a.name,
        domain: a.domain ?? null,
        website: a.website ?? (a.domain ? `https://www.${a.domain}` : null),
        owner_id: a.owner_id ?? null,
        created_at: at,
        updated_at: timeOf(a.updated_at, at),
      };
      accounts.set(row.id, row);
      ids.accounts.push(row.id);
    }
    for (const p of data.people ?? []) {
      const at = stamp();
      const row: PersonRow = {
        id: idFor('person', p.id),
        first_name: p.first_name,
        last_name: p.last_name,
        email_address: p.email_address ?? null,
        do_not_contact: p.do_not_contact ?? false,
        title: p.title ?? null,
        account_id: p.account_id ?? null,
        owner_id: p.owner_id ?? null,
        last_completed_step_id: null,
        custom_fields: {},
        created_at: at,
        updated_at: timeOf(p.updated_at, at),
      };
      people.set(row.id, row);
      ids.people.push(row.id);
    }
    for (const c of data.cadences ?? []) {
      const at = stamp();
      const row: CadenceRow = {
        id: idFor('cadence', c.id),
        name: c.name,
        owner_id: c.owner_id ?? null,
        current_state: c.current_state ?? 'active',
        archived_at: c.archived_at ? timeOf(c.archived_at, at) : null,
        team_cadence: c.team_cadence ?? false,
        created_at: at,
        updated_at: timeOf(c.updated_at, at),
      };
      cadences.set(row.id, row);
      ids.cadences.push(row.id);
      const perDay = new Map<string, number>();
      for (const s of c.steps ?? []) {
        const stepAt = stamp();
        const number = (perDay.get(String(s.day)) ?? 0) + 1;
        perDay.set(String(s.day), number);
        const type = s.type ?? 'email';
        const step: StepRow = {
          id: idFor('step', s.id),
          cadence_id: row.id,
          day: s.day,
          step_number: s.step_number ?? number,
          type,
          name: s.name ?? `${type === 'phone' ? 'Call' : type === 'email' ? 'Email' : 'Task'}`,
          disabled: s.disabled ?? false,
          created_at: stepAt,
          updated_at: timeOf(s.updated_at, stepAt),
        };
        steps.set(step.id, step);
        ids.steps.push(step.id);
      }
    }
    for (const m of data.memberships ?? []) {
      if (!cadences.has(m.cadence_id)) throw new Error(`fake Salesloft: no cadence ${m.cadence_id}`);
      if (!people.has(m.person_id)) throw new Error(`fake Salesloft: no person ${m.person_id}`);
      const at = stamp();
      const row: MembershipRow = {
        id: idFor('membership', m.id),
        cadence_id: m.cadence_id,
        person_id: m.person_id,
        user_id: m.user_id ?? null,
        current_state: m.current_state ?? 'active',
        latest_action_id: null,
        counts: { views: 0, clicks: 0, replies: 0, calls: 0, sent_emails: 0, bounces: 0, ...m.counts },
        added_at: at,
        created_at: at,
        updated_at: timeOf(m.updated_at, at),
      };
      const replaced = memberships.get(row.id);
      if (replaced) membershipsOfPerson.get(replaced.person_id)?.delete(row.id);
      memberships.set(row.id, row);
      let ofPerson = membershipsOfPerson.get(row.person_id);
      if (!ofPerson) membershipsOfPerson.set(row.person_id, (ofPerson = new Set()));
      ofPerson.add(row.id);
      const stepId = m.step_id ?? (m.day !== undefined ? stepForDay(row.cadence_id, m.day) : null);
      placeMembership(row, stepId, at);
      ids.memberships.push(row.id);
    }
    return ids;
  }

  type Patch = {
    user: Partial<Omit<SeedUser, 'id'>>;
    account: Partial<Omit<SeedAccount, 'id'>>;
    person: Partial<Omit<SeedPerson, 'id'>>;
    cadence: Partial<Omit<SeedCadence, 'id' | 'steps'>>;
    step: Partial<Omit<SeedStep, 'id'>>;
    membership: Partial<Omit<SeedMembership, 'id' | 'cadence_id' | 'person_id'>>;
  };
  const tables: Record<Kind, Map<number, Row>> = {
    user: users,
    account: accounts,
    person: people,
    cadence: cadences,
    step: steps,
    membership: memberships,
  };

  /** Changes a record as a Salesloft user would; its updated_at moves to now (or to `updated_at`). */
  function update<K extends Kind>(kind: K, id: number, patch: Patch[K]) {
    const row = tables[kind].get(id) as (Row & Record<string, unknown>) | undefined;
    if (!row) throw new Error(`fake Salesloft: no ${kind} ${id}`);
    changed();
    const at = stamp();
    const { updated_at, ...fields } = patch as Record<string, unknown> & { updated_at?: string };
    if (kind === 'membership') {
      const m = row as unknown as MembershipRow;
      const { day, step_id, counts, ...rest } = fields as Patch['membership'];
      Object.assign(m, rest);
      if (counts) m.counts = { ...m.counts, ...counts };
      if (step_id !== undefined || day !== undefined) {
        placeMembership(m, step_id ?? stepForDay(m.cadence_id, day!), at);
      }
    } else if (kind === 'cadence' && 'archived_at' in fields) {
      const { archived_at, ...rest } = fields as Patch['cadence'];
      Object.assign(row, rest, { archived_at: archived_at ? timeOf(archived_at, at) : null });
    } else {
      Object.assign(row, fields);
    }
    row.updated_at = timeOf(updated_at, at);
  }

  // ---- serialisation (Salesloft's field names; related records as {id, _href}) ------------------

  const t = (us: number | null) => (us === null ? null : formatTime(us));
  const serialize = {
    user: (u: UserRow) => ({
      id: u.id,
      guid: u.guid,
      name: `${u.first_name} ${u.last_name}`.trim(),
      first_name: u.first_name,
      last_name: u.last_name,
      email: u.email,
      active: u.active,
      team_admin: u.team_admin,
      time_zone: 'US/Eastern',
      group: null,
      role: { id: u.team_admin ? 'Admin' : 'User' },
      team: href('team', team.id),
      created_at: t(u.created_at),
      updated_at: t(u.updated_at),
    }),
    account: (a: AccountRow) => ({
      id: a.id,
      name: a.name,
      domain: a.domain,
      website: a.website,
      owner: href('users', a.owner_id),
      crm_id: null,
      archived_at: null,
      created_at: t(a.created_at),
      updated_at: t(a.updated_at),
    }),
    person: (p: PersonRow) => {
      const account = p.account_id === null ? undefined : accounts.get(p.account_id);
      const cadenceIds = [...(membershipsOfPerson.get(p.id) ?? [])].map(
        (id) => memberships.get(id)!.cadence_id,
      );
      return {
        id: p.id,
        first_name: p.first_name,
        last_name: p.last_name,
        display_name: `${p.first_name} ${p.last_name}`.trim() || p.email_address,
        email_address: p.email_address,
        do_not_contact: p.do_not_contact,
        title: p.title,
        person_company_name: account?.name ?? null,
        person_company_website: account?.website ?? null,
        account: href('accounts', p.account_id),
        owner: href('users', p.owner_id),
        person_stage: null,
        cadences: cadenceIds.map((id) => href('cadences', id)),
        most_recent_cadence: href('cadences', cadenceIds.at(-1) ?? null),
        last_completed_step: href('steps', p.last_completed_step_id),
        last_contacted_at: null,
        crm_id: null,
        // "Only fields with values are presented in the API" (API definition, custom_fields).
        custom_fields: { ...p.custom_fields },
        created_at: t(p.created_at),
        updated_at: t(p.updated_at),
      };
    },
    cadence: (c: CadenceRow) => ({
      id: c.id,
      name: c.name,
      team_cadence: c.team_cadence,
      shared: c.team_cadence,
      draft: c.current_state === 'draft',
      current_state: c.current_state,
      archived_at: t(c.archived_at),
      cadence_function: 'outbound',
      tags: [],
      owner: href('users', c.owner_id),
      creator: href('users', c.owner_id),
      counts: { cadence_people: [...memberships.values()].filter((m) => m.cadence_id === c.id).length },
      created_at: t(c.created_at),
      updated_at: t(c.updated_at),
    }),
    step: (s: StepRow) => ({
      id: s.id,
      cadence: href('cadences', s.cadence_id),
      day: s.day,
      step_number: s.step_number,
      type: s.type,
      name: s.name,
      display_name: `Day ${s.day}: Step ${s.step_number} - ${s.name}`,
      disabled: s.disabled,
      multitouch_enabled: false,
      details: null,
      created_at: t(s.created_at),
      updated_at: t(s.updated_at),
    }),
    membership: (m: MembershipRow) => ({
      id: m.id,
      added_at: t(m.added_at),
      created_at: t(m.created_at),
      updated_at: t(m.updated_at),
      person_deleted: !people.has(m.person_id),
      currently_on_cadence: ON_CADENCE.has(m.current_state),
      current_state: m.current_state,
      cadence: href('cadences', m.cadence_id),
      person: href('people', m.person_id),
      user: href('users', m.user_id),
      latest_action: href('actions', m.latest_action_id),
      counts: { ...m.counts },
    }),
    action: (a: ActionRow) => ({
      id: a.id,
      type: a.type,
      status: a.status,
      due: true,
      due_on: t(a.due_on),
      multitouch_group_id: null,
      step: href('steps', a.step_id),
      cadence: href('cadences', a.cadence_id),
      person: href('people', a.person_id),
      user: href('users', a.user_id),
      task: null,
      action_details: null,
      created_at: t(a.created_at),
      updated_at: t(a.updated_at),
    }),
  };

  // ---- query parameters (Rails style: `ids[]=1&ids[]=2`, also `ids=1,2`) ---------------------------

  function readQuery(q: URLSearchParams) {
    const errors: Record<string, string[]> = {};
    const bad = (field: string, msg: string) => (errors[field] ??= []).push(msg);
    const int = (name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined => {
      const raw = q.get(name);
      if (raw === null || raw === '') return undefined;
      const n = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || n < min || n > max) {
        bad(
          name,
          max === Number.MAX_SAFE_INTEGER
            ? `must be an integer ≥ ${min}`
            : `must be in the range [${min}, ${max}]`,
        );
        return undefined;
      }
      return n;
    };
    const ints = (name: string): number[] | undefined => {
      const raw = [...q.getAll(`${name}[]`), ...q.getAll(name).flatMap((v) => v.split(','))].filter(
        (v) => v !== '',
      );
      if (!raw.length) return undefined;
      if (raw.some((v) => !/^\d+$/.test(v.trim()))) bad(name, 'must be integers');
      if (raw.length > MAX_IDS) bad(name, `at most ${MAX_IDS} values`);
      return raw.map(Number);
    };
    const bool = (name: string): boolean | undefined => {
      const raw = q.get(name);
      if (raw === null || raw === '') return undefined;
      if (raw !== 'true' && raw !== 'false') bad(name, 'must be true or false');
      return raw === 'true';
    };
    const times = (field: string) => {
      const tests: Array<(us: number) => boolean> = [];
      for (const op of ['gt', 'gte', 'lt', 'lte'] as const) {
        const raw = q.get(`${field}[${op}]`);
        if (raw === null) continue;
        const us = parseTime(raw);
        if (us === null) {
          bad(field, `${op} must be an iso8601 timestamp`);
          continue;
        }
        tests.push(
          op === 'gt'
            ? (v) => v > us
            : op === 'gte'
              ? (v) => v >= us
              : op === 'lt'
                ? (v) => v < us
                : (v) => v <= us,
        );
      }
      return (v: number) => tests.every((test) => test(v));
    };
    return { errors, int, ints, bool, times };
  }

  /** The `ids` filter when it is present and well formed (else null: the full scan reports errors). */
  function idsGiven(q: URLSearchParams): number[] | null {
    const raw = [...q.getAll('ids[]'), ...q.getAll('ids').flatMap((v) => v.split(','))].filter(
      (v) => v !== '',
    );
    return raw.length && raw.every((v) => /^\d+$/.test(v.trim())) ? raw.map(Number) : null;
  }

  type ListSpec<R extends Row> = {
    rows: Map<number, R>;
    sortKeys: Record<string, (r: R) => number | string>;
    defaultSort: string;
    /** /users: "Results are only paginated if the page parameter is defined". */
    allWithoutPage?: boolean;
    filter: (read: ReturnType<typeof readQuery>) => (r: R) => boolean;
    serialize: (r: R) => unknown;
  };

  function list<R extends Row>(q: URLSearchParams, spec: ListSpec<R>) {
    const read = readQuery(q);
    const paged = !spec.allWithoutPage || q.has('page');
    const perPage = read.int('per_page', 1, 100) ?? 25;
    const page = read.int('page', 1) ?? 1;
    const sortBy = q.get('sort_by') ?? spec.defaultSort;
    if (!(sortBy in spec.sortKeys)) {
      read.errors.sort_by = [`must be one of: ${Object.keys(spec.sortKeys).join(', ')}`];
    }
    const direction = (q.get('sort_direction') ?? 'DESC').toUpperCase();
    if (direction !== 'ASC' && direction !== 'DESC')
      read.errors.sort_direction = ['must be one of: ASC, DESC'];
    const keep = spec.filter(read);
    const counts = read.bool('include_paging_counts');
    if (Object.keys(read.errors).length) throw new HttpError(422, { errors: read.errors });

    const key = spec.sortKeys[sortBy]!;
    const sign = direction === 'ASC' ? 1 : -1;
    const compare = (a: R, b: R) => {
      const ka = key(a);
      const kb = key(b);
      return sign * (ka < kb ? -1 : ka > kb ? 1 : a.id - b.id);
    };
    // An `ids` lookup reads just those rows, and a listing filters a sorted copy kept until the next
    // change (the filter still applies to both), so paging a large seed stays fast.
    const ids = idsGiven(q);
    let rows: R[];
    if (ids) {
      rows = [...new Set(ids)]
        .flatMap((id) => spec.rows.get(id) ?? [])
        .filter(keep)
        .sort(compare);
    } else {
      let orders = sortedListings.get(spec.rows) as Map<string, R[]> | undefined;
      if (!orders) sortedListings.set(spec.rows, (orders = new Map()));
      let sorted = orders.get(`${sortBy} ${direction}`);
      if (!sorted) orders.set(`${sortBy} ${direction}`, (sorted = [...spec.rows.values()].sort(compare)));
      rows = sorted.filter(keep);
    }
    const size = paged ? perPage : Math.max(rows.length, 1);
    const totalPages = Math.ceil(rows.length / size);
    const slice = paged ? rows.slice((page - 1) * size, page * size) : rows;
    const paging: Record<string, number | null> = {
      per_page: size,
      current_page: paged ? page : 1,
      next_page: paged && page < totalPages ? page + 1 : null,
      prev_page: paged && page > 1 ? page - 1 : null,
    };
    if (counts) Object.assign(paging, { total_pages: totalPages, total_count: rows.length });
    return {
      data: slice.map(spec.serialize),
      metadata: { filtering: {}, paging, sorting: { sort_by: sortBy, sort_direction: direction } },
    };
  }

  const byUpdated = {
    updated_at: (r: Row) => r.updated_at,
    created_at: (r: Row) => r.created_at,
  };
  const idsAndTimes = (read: ReturnType<typeof readQuery>) => {
    const given = read.ints('ids');
    const ids = given && new Set(given);
    const updated = read.times('updated_at');
    return (r: Row) => (!ids || ids.has(r.id)) && updated(r.updated_at);
  };

  type Resource = {
    scope: string | null;
    list?: (q: URLSearchParams, auth: TokenRow) => unknown;
    one?: (id: number) => unknown;
  };
  const one =
    <R extends Row>(table: Map<number, R>, ser: (r: R) => unknown) =>
    (id: number) => {
      const row = table.get(id);
      if (!row) throw fail(404, 'Not Found');
      return { data: ser(row) };
    };

  const resources: Record<string, Resource> = {
    me: { scope: null },
    // The definition names no scope for custom fields: any valid token reads them here.
    custom_fields: {
      scope: null,
      list: (q) =>
        list(q, {
          rows: customFields,
          sortKeys: { ...byUpdated, name: (f) => f.name },
          defaultSort: 'updated_at',
          filter: (read) => {
            const base = idsAndTimes(read);
            const type = q.get('field_type');
            if (type !== null && !['person', 'company', 'opportunity'].includes(type)) {
              read.errors.field_type = ['must be one of: person, company, opportunity'];
            }
            return (f) => base(f) && (type === null || f.field_type === type);
          },
          serialize: (f) => ({
            id: f.id,
            name: f.name,
            field_type: f.field_type,
            value_type: f.value_type,
            created_at: t(f.created_at),
            updated_at: t(f.updated_at),
          }),
        }),
    },
    team: { scope: 'team:read' },
    users: {
      scope: 'team:read',
      // GET /v2/users.json in the API definition: "Non Admin: Lists only your user, or all on team
      // depending on group visibility policy. Team Admin: Lists users associated with your team".
      list: (q, auth) =>
        list(q, {
          rows: users,
          sortKeys: { id: (u) => u.id, email: (u) => u.email, name: (u) => `${u.first_name} ${u.last_name}` },
          defaultSort: 'id',
          allWithoutPage: true,
          filter: (read) => {
            const ids = read.ints('ids');
            const active = read.bool('active');
            // visible_only (default true) hides deactivated users; false shows the whole team.
            const visibleOnly = read.bool('visible_only') ?? true;
            const onlyOwn = !users.get(auth.userId)?.team_admin && !opts.nonAdminSeesTeam;
            return (u) =>
              (!onlyOwn || u.id === auth.userId) &&
              (!ids || ids.includes(u.id)) &&
              (active === undefined || u.active === active) &&
              (!visibleOnly || u.active);
          },
          serialize: serialize.user,
        }),
      one: one(users, serialize.user),
    },
    accounts: {
      scope: 'accounts:read',
      list: (q) =>
        list(q, {
          rows: accounts,
          sortKeys: { ...byUpdated, name: (a) => a.name },
          defaultSort: 'updated_at',
          filter: (read) => {
            const base = idsAndTimes(read);
            const domain = q.get('domain');
            return (a) => base(a) && (domain === null || a.domain === domain);
          },
          serialize: serialize.account,
        }),
      one: one(accounts, serialize.account),
    },
    people: {
      scope: 'people:read',
      list: (q) =>
        list(q, {
          rows: people,
          sortKeys: { ...byUpdated },
          defaultSort: 'updated_at',
          filter: (read) => {
            const base = idsAndTimes(read);
            const accountIds = read.ints('account_id');
            return (p) =>
              base(p) && (!accountIds || (p.account_id !== null && accountIds.includes(p.account_id)));
          },
          serialize: serialize.person,
        }),
      one: one(people, serialize.person),
    },
    cadences: {
      scope: 'cadences:read',
      list: (q) =>
        list(q, {
          rows: cadences,
          sortKeys: { ...byUpdated },
          defaultSort: 'updated_at',
          filter: (read) => {
            const base = idsAndTimes(read);
            const teamCadence = read.bool('team_cadence');
            return (c) => base(c) && (teamCadence === undefined || c.team_cadence === teamCadence);
          },
          serialize: serialize.cadence,
        }),
      one: one(cadences, serialize.cadence),
    },
    steps: {
      scope: 'cadences:read',
      list: (q) =>
        list(q, {
          rows: steps,
          sortKeys: { ...byUpdated },
          defaultSort: 'updated_at',
          // GET /v2/steps.json documents ids, cadence_id, type, has_due_actions, sorting and paging,
          // and no updated_at filter (test/vendor-specs/salesloft-*: the published definition). Like
          // the real API with a parameter it does not know, an updated_at[...] filter is ignored.
          filter: (read) => {
            const given = read.ints('ids');
            const base = (r: Row) => !given || given.includes(r.id);
            const cadenceId = read.int('cadence_id', 1);
            const type = q.get('type');
            return (s) =>
              base(s) &&
              (cadenceId === undefined || s.cadence_id === cadenceId) &&
              (!type || s.type === type);
          },
          serialize: serialize.step,
        }),
      one: one(steps, serialize.step),
    },
    cadence_memberships: {
      scope: 'cadences:read',
      list: (q) =>
        list(q, {
          rows: memberships,
          sortKeys: { updated_at: (m) => m.updated_at, added_at: (m) => m.added_at },
          defaultSort: 'updated_at',
          filter: (read) => {
            const base = idsAndTimes(read);
            const cadenceId = read.int('cadence_id', 1);
            const personId = read.int('person_id', 1);
            const on = read.bool('currently_on_cadence');
            return (m) =>
              base(m) &&
              (cadenceId === undefined || m.cadence_id === cadenceId) &&
              (personId === undefined || m.person_id === personId) &&
              (on === undefined || ON_CADENCE.has(m.current_state) === on);
          },
          serialize: serialize.membership,
        }),
      one: one(memberships, serialize.membership),
    },
    actions: {
      scope: 'cadences:read',
      // "If the requester is not an admin, this endpoint will only return actions belonging to the
      // requester. If the request is an admin, this endpoint will return actions for the entire
      // team." (developer.salesloft.com/docs/api/actions-index, List actions)
      list: (q, auth) =>
        list(q, {
          rows: actions,
          sortKeys: { ...byUpdated, due_on: (a) => a.due_on },
          defaultSort: 'updated_at',
          filter: (read) => {
            const ownOnly = !users.get(auth.userId)?.team_admin;
            const idsAndTime = idsAndTimes(read);
            const base = (a: ActionRow) => (!ownOnly || a.user_id === auth.userId) && idsAndTime(a);
            const stepId = read.int('step_id', 1);
            const cadenceIds = read.ints('cadence_id');
            const personIds = read.ints('person_id');
            return (a) =>
              base(a) &&
              (stepId === undefined || a.step_id === stepId) &&
              (!cadenceIds || cadenceIds.includes(a.cadence_id)) &&
              (!personIds || personIds.includes(a.person_id));
          },
          serialize: serialize.action,
        }),
      one: one(actions, serialize.action),
    },
  };

  // ---- HTTP -------------------------------------------------------------------------------------

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(body === undefined ? '' : JSON.stringify(body));
  }

  async function readBody(req: IncomingMessage): Promise<URLSearchParams> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    if ((req.headers['content-type'] ?? '').includes('application/json')) {
      let parsed: unknown;
      try {
        parsed = JSON.parse(text || '{}');
      } catch {
        throw new HttpError(400, {
          error: 'invalid_request',
          error_description: 'The body is not valid JSON.',
        });
      }
      const out = new URLSearchParams();
      for (const [k, v] of Object.entries(parsed as Record<string, unknown>)) {
        if (v !== null && v !== undefined) out.set(k, String(v));
      }
      return out;
    }
    return new URLSearchParams(text);
  }

  function redirectAllowed(uri: string): boolean {
    if (redirectUris) return redirectUris.includes(uri);
    if (!URL.canParse(uri)) return false;
    const u = new URL(uri);
    return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname);
  }

  function authorizingUser(): UserRow | undefined {
    if (opts.authorizingUserId !== undefined) return users.get(opts.authorizingUserId);
    const all = [...users.values()].filter((u) => u.active);
    return all.find((u) => u.team_admin) ?? all[0];
  }

  function authorize(q: URLSearchParams, res: ServerResponse) {
    // Like Doorkeeper: a bad client or redirect URI is shown as an error page, never redirected to.
    if (q.get('client_id') !== clientId) {
      throw new HttpError(401, {
        error: 'invalid_client',
        error_description: 'Client authentication failed due to unknown client.',
      });
    }
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!redirectAllowed(redirectUri)) {
      throw new HttpError(400, {
        error: 'invalid_redirect_uri',
        error_description: "The requested redirect uri is malformed or doesn't match client redirect URI.",
      });
    }
    const back = new URL(redirectUri);
    const state = q.get('state');
    if (state !== null) back.searchParams.set('state', state);
    const requested = (q.get('scope') ?? '').split(/[\s+]+/).filter(Boolean);
    if (q.get('response_type') !== 'code') {
      back.searchParams.set('error', 'unsupported_response_type');
    } else if (requested.some((s) => !appScopes.includes(s))) {
      back.searchParams.set('error', 'invalid_scope');
    } else {
      const user = authorizingUser();
      if (!user) throw new HttpError(400, { error: 'no user to sign in: seed the fake with users first' });
      const code = randomBytes(20).toString('hex');
      const scope = requested.length ? requested : appScopes;
      codes.set(code, {
        clientId,
        redirectUri,
        userId: user.id,
        scope,
        expiresAt: nowMs() + CODE_TTL_MS,
        used: false,
      });
      back.searchParams.set('code', code);
      back.searchParams.set('context', `/v2/users/${user.id}`);
      back.searchParams.set('scope', scope.join(' '));
    }
    res.writeHead(302, { location: back.toString() });
    res.end();
  }

  function issueTokens(userId: number, scope: string[]): TokenReply {
    const row: TokenRow = {
      accessToken: randomBytes(32).toString('hex'),
      refreshToken: randomBytes(32).toString('hex'),
      userId,
      scope,
      accessExpiresAt: nowMs() + TOKEN_TTL_SECONDS * 1000,
      refreshUsed: false,
      revoked: false,
    };
    accessTokens.set(row.accessToken, row);
    refreshTokens.set(row.refreshToken, row);
    return {
      access_token: row.accessToken,
      token_type: 'bearer',
      expires_in: TOKEN_TTL_SECONDS,
      refresh_token: row.refreshToken,
      scope: scope.join(' '),
      created_at: Math.floor(nowMs() / 1000),
    };
  }

  const invalidGrant = () =>
    new HttpError(400, {
      error: 'invalid_grant',
      error_description:
        'The provided authorization grant is invalid, expired, revoked, does not match the redirection URI used in the authorization request, or was issued to another client.',
    });

  async function token(req: IncomingMessage, res: ServerResponse) {
    const body = await readBody(req);
    // Client credentials in the body (what Salesloft documents) or with HTTP Basic.
    let id = body.get('client_id');
    let secret = body.get('client_secret');
    const basic = /^Basic\s+(.+)$/i.exec(req.headers.authorization ?? '');
    if (basic?.[1]) {
      const [u, p] = Buffer.from(basic[1], 'base64').toString('utf8').split(':');
      id = decodeURIComponent(u ?? '');
      secret = decodeURIComponent(p ?? '');
    }
    if (id !== clientId || secret !== clientSecret) {
      throw new HttpError(401, {
        error: 'invalid_client',
        error_description:
          'Client authentication failed due to unknown client, no client authentication included, or unsupported authentication method.',
      });
    }
    const grantType = body.get('grant_type');
    if (grantType === 'authorization_code') {
      const code = body.get('code');
      const redirectUri = body.get('redirect_uri');
      if (!code || !redirectUri) {
        throw new HttpError(400, {
          error: 'invalid_request',
          error_description: 'Missing required parameter: code and redirect_uri.',
        });
      }
      const grant = codes.get(code);
      if (!grant || grant.used || grant.expiresAt < nowMs() || grant.redirectUri !== redirectUri)
        throw invalidGrant();
      grant.used = true;
      return send(res, 200, issueTokens(grant.userId, grant.scope), { 'cache-control': 'no-store' });
    }
    if (grantType === 'refresh_token') {
      const presented = body.get('refresh_token');
      if (!presented) {
        throw new HttpError(400, {
          error: 'invalid_request',
          error_description: 'Missing required parameter: refresh_token.',
        });
      }
      const row = refreshTokens.get(presented);
      if (!row || row.refreshUsed || row.revoked) throw invalidGrant();
      // Rotation: the presented refresh token stops working; its access token lives out its time.
      row.refreshUsed = true;
      return send(res, 200, issueTokens(row.userId, row.scope), { 'cache-control': 'no-store' });
    }
    throw new HttpError(400, {
      error: 'unsupported_grant_type',
      error_description: 'The authorization grant type is not supported by the authorization server.',
    });
  }

  function authenticate(req: IncomingMessage): TokenRow {
    const m = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '');
    if (!m?.[1]) throw fail(401, 'Not authorized: a Bearer token is required');
    const row = accessTokens.get(m[1]);
    if (!row || row.revoked) throw fail(401, 'Invalid Bearer token');
    if (row.accessExpiresAt <= nowMs()) throw fail(401, 'The access token expired');
    return row;
  }

  /** Charges one request against the team's per-minute budget (writes cost 1 like a first page). */
  function charge(cost: number): Record<string, string> {
    const window = Math.floor(nowMs() / 60_000);
    if (budget.window !== window) budget = { window, used: 0 };
    const remaining = rateLimitPerMinute - budget.used;
    if (cost > remaining) {
      throw fail(429, 'Rate limit exceeded').withHeaders({
        'x-ratelimit-endpoint-cost': String(cost),
        'x-ratelimit-remaining-minute': String(Math.max(0, remaining)),
      });
    }
    budget.used += cost;
    return {
      'x-ratelimit-endpoint-cost': String(cost),
      'x-ratelimit-remaining-minute': String(rateLimitPerMinute - budget.used),
    };
  }

  async function jsonBody(req: IncomingMessage): Promise<Record<string, unknown>> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    try {
      const parsed = JSON.parse(text || '{}') as unknown;
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed))
        return parsed as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new HttpError(422, { errors: { base: ['the body must be a JSON object'] } });
  }

  /**
   * The writes the ad fields use (issue 38), as the API definition gives them: `PUT /v2/people/{id}`
   * (`custom_fields`: "Custom fields are defined by the user's team", keyed by field name; scope
   * people:write per Salesloft's scope list) and `POST /v2/custom_fields` (`name`, `field_type`
   * person, company or opportunity). [?] What an unknown field name does is not documented: here
   * it is dropped, so the value is lost (the adapter checks the fields exist before writing).
   * [?] Which scope creating a field needs is not documented: here a team admin's token may.
   */
  async function write(req: IncomingMessage, url: URL, res: ServerResponse, auth: TokenRow) {
    const parts = url.pathname
      .replace(/\.json$/, '')
      .split('/')
      .filter(Boolean)
      .slice(1);
    const [name, idPart, ...extra] = parts;
    if (req.method === 'PUT' && name === 'people' && idPart && /^\d+$/.test(idPart) && !extra.length) {
      if (!auth.scope.includes('people:write')) {
        throw fail(403, 'This application is not authorized for the people:write scope');
      }
      const headers = charge(1);
      const body = await jsonBody(req);
      const person = people.get(Number(idPart));
      if (!person) throw fail(404, 'Not Found');
      const given = body.custom_fields;
      if (given !== undefined && (given === null || typeof given !== 'object' || Array.isArray(given))) {
        throw new HttpError(422, { errors: { custom_fields: ['must be a hash'] } });
      }
      const known = new Set(
        [...customFields.values()].filter((f) => f.field_type === 'person').map((f) => f.name),
      );
      const next = new Map(Object.entries(person.custom_fields));
      for (const [key, value] of Object.entries((given ?? {}) as Record<string, unknown>)) {
        if (!known.has(key)) continue;
        if (value === null || value === '') next.delete(key);
        else next.set(key, String(value));
      }
      person.custom_fields = Object.fromEntries(next);
      person.updated_at = stamp();
      changed();
      return send(res, 200, { data: serialize.person(person) }, headers);
    }
    if (req.method === 'POST' && name === 'custom_fields' && idPart === undefined) {
      const user = users.get(auth.userId);
      if (!user?.team_admin) throw fail(403, 'Only team admins may manage custom fields');
      const headers = charge(1);
      const body = await jsonBody(req);
      const fieldName = typeof body.name === 'string' ? body.name.trim() : '';
      const type = body.field_type ?? 'person';
      const errors: Record<string, string[]> = {};
      if (!fieldName) errors.name = ["can't be blank"];
      if (typeof type !== 'string' || !['person', 'company', 'opportunity'].includes(type)) {
        errors.field_type = ['must be one of: person, company, opportunity'];
      } else if ([...customFields.values()].some((f) => f.field_type === type && f.name === fieldName)) {
        errors.name = ['has already been taken'];
      }
      if (Object.keys(errors).length) throw new HttpError(422, { errors });
      changed();
      const row = addCustomField({ name: fieldName, field_type: type as SeedCustomField['field_type'] });
      return send(
        res,
        200,
        { data: { id: row.id, name: row.name, field_type: row.field_type, value_type: row.value_type } },
        headers,
      );
    }
    throw fail(404, 'Not Found');
  }

  async function api(req: IncomingMessage, url: URL, res: ServerResponse) {
    const auth = authenticate(req);
    const injectedStatus = injected.shift();
    if (injectedStatus !== undefined) {
      const headers: Record<string, string> =
        injectedStatus === 429
          ? { 'x-ratelimit-endpoint-cost': '1', 'x-ratelimit-remaining-minute': '0' }
          : {};
      throw new HttpError(injectedStatus, {
        error: injectedStatus === 429 ? 'Rate limit exceeded' : 'Internal Server Error',
      }).withHeaders(headers);
    }
    if (req.method !== 'GET') {
      await write(req, url, res, auth);
      return;
    }
    const parts = url.pathname
      .replace(/\.json$/, '')
      .split('/')
      .filter(Boolean)
      .slice(1);
    const [name, idPart, ...extra] = parts;
    const resource = name === undefined ? undefined : resources[name];
    if (!resource || extra.length || (idPart !== undefined && !/^\d+$/.test(idPart)))
      throw fail(404, 'Not Found');
    if (resource.scope && !auth.scope.includes(resource.scope)) {
      throw fail(403, `This application is not authorized for the ${resource.scope} scope`);
    }

    // The team's budget, per clock minute; a page's cost grows with its number.
    const requestedPage = Number(url.searchParams.get('page'));
    const cost =
      idPart === undefined && Number.isInteger(requestedPage) && requestedPage > 1
        ? pageCost(requestedPage)
        : 1;
    const headers = charge(cost);

    let body: unknown;
    if (name === 'me') {
      if (idPart !== undefined) throw fail(404, 'Not Found');
      const user = users.get(auth.userId);
      if (!user) throw fail(404, 'Not Found');
      body = { data: serialize.user(user) };
    } else if (name === 'team') {
      if (idPart !== undefined) throw fail(404, 'Not Found');
      body = {
        data: {
          id: team.id,
          name: team.name,
          plan: 'enterprise',
          created_at: t(team.created_at),
          updated_at: t(team.updated_at),
        },
      };
    } else if (idPart !== undefined && resource.one) {
      body = resource.one(Number(idPart));
    } else if (idPart === undefined && resource.list) {
      body = resource.list(url.searchParams, auth);
    } else {
      throw fail(404, 'Not Found');
    }
    send(res, 200, body, headers);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', origin);
    const entry: LoggedRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      status: 0,
    };
    requests.push(entry);
    try {
      if (url.pathname === '/oauth/authorize' && req.method === 'GET') authorize(url.searchParams, res);
      else if (url.pathname === '/oauth/token' && req.method === 'POST') await token(req, res);
      else if (url.pathname.startsWith('/v2/')) await api(req, url, res);
      else throw fail(404, 'Not Found');
    } catch (err) {
      if (err instanceof HttpError) send(res, err.status, err.body, err.headers);
      else {
        console.error('fake Salesloft failed', err);
        send(res, 500, { error: 'Internal Server Error' });
      }
    } finally {
      // Set before the client can read the reply, so tests see it as soon as their call returns.
      entry.status = res.statusCode;
    }
  }

  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('fake Salesloft did not get a port');
  origin = `http://127.0.0.1:${address.port}`;
  if (opts.seed) seed(opts.seed);

  return {
    /** Base of the v2 API, e.g. http://127.0.0.1:PORT/v2 (SALESLOFT_API_URL). */
    apiUrl: `${origin}/v2`,
    /** The accounts server (SALESLOFT_AUTH_URL). */
    authUrl: origin,
    clientId,
    clientSecret,
    /** Every request received, oldest first (OAuth and API). */
    requests,
    /** API requests to one resource (`/v2/<name>` with or without `.json`). */
    apiRequests(name: string) {
      return requests.filter((r) => r.path.replace(/\.json$/, '') === `/v2/${name}`);
    },
    clearRequests() {
      requests.length = 0;
    },
    seed,
    update,
    /** A person's custom field values as stored (the ad fields' tests read them). */
    customFieldsOf(personId: number): Record<string, string> {
      const p = people.get(personId);
      if (!p) throw new Error(`fake Salesloft: no person ${personId}`);
      return { ...p.custom_fields };
    },
    /** Deletes a custom field (an admin removed it in Settings): its values go with it. */
    deleteCustomField(name: string) {
      for (const [id, f] of customFields) if (f.name === name) customFields.delete(id);
      for (const p of people.values()) {
        p.custom_fields = Object.fromEntries(Object.entries(p.custom_fields).filter(([k]) => k !== name));
      }
      changed();
    },
    /** Deletes a person; their memberships stay, marked `person_deleted` (and updated). */
    deletePerson(personId: number) {
      if (!people.delete(personId)) throw new Error(`fake Salesloft: no person ${personId}`);
      for (const id of membershipsOfPerson.get(personId) ?? []) memberships.get(id)!.updated_at = stamp();
      changed();
    },
    /**
     * Deletes a membership's latest action while the membership keeps referring to it, as when an
     * action is done and gone from /actions; the person's last completed step still tells the day.
     */
    dropLatestAction(membershipId: number) {
      const m = memberships.get(membershipId);
      if (!m || m.latest_action_id === null)
        throw new Error(`fake Salesloft: membership ${membershipId} has no action`);
      actions.delete(m.latest_action_id);
      changed();
    },
    /** The next `count` API calls (after authentication) answer `status`: a 429 or a 5xx. */
    failNext(count: number, status = 429) {
      for (let i = 0; i < count; i++) injected.push(status);
    },
    /** Every access token issued so far stops working (refresh tokens still do). */
    expireAccessTokens() {
      for (const row of accessTokens.values()) row.accessExpiresAt = Math.min(row.accessExpiresAt, nowMs());
    },
    /** The customer disconnected the app: every access and refresh token stops working. */
    revokeAll() {
      for (const row of accessTokens.values()) row.revoked = true;
    },
    /** Issues tokens as a finished authorization-code flow would, for tests that skip the browser part. */
    grantTokens(userId?: number, scope: string[] = appScopes): TokenReply {
      const user = userId === undefined ? authorizingUser() : users.get(userId);
      if (!user) throw new Error('fake Salesloft: no user to grant tokens to');
      return issueTokens(user.id, scope);
    },
    /** Who "signs in" at the next /oauth/authorize (undefined: the first team admin, as at start). */
    setAuthorizingUser(userId: number | undefined) {
      opts.authorizingUserId = userId;
    },
    /** Registers one more redirect URI (the app's port is often known only after start). */
    addRedirectUri(uri: string) {
      if (!redirectUris)
        throw new Error('fake Salesloft: redirectUris was not given, every loopback URI is accepted');
      redirectUris.push(uri);
    },
    setRateLimitPerMinute(cost: number) {
      rateLimitPerMinute = cost;
    },
    /** Moves the fake's clock (token expiry, rate-limit minutes, updated_at stamps) forward. */
    advanceClock(ms: number) {
      clockOffsetMs += ms;
    },
    now: () => formatTime(stamp()),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}

export type FakeSalesloft = Awaited<ReturnType<typeof startFakeSalesloft>>;

/**
 * A small, believable team for demos and end-to-end tests (fixed ids, no randomness): four reps (one
 * deactivated), eight companies, thirty people and three cadences (two active, one draft) whose
 * steps fall on several days, with people spread over those days.
 */
export function demoSalesloftData(): FakeSalesloftSeed {
  const users: SeedUser[] = [
    {
      id: 101,
      first_name: 'Dana',
      last_name: 'Whitfield',
      email: 'dana.whitfield@acme-cloud.example',
      team_admin: true,
    },
    { id: 102, first_name: 'Marcus', last_name: 'Chen', email: 'marcus.chen@acme-cloud.example' },
    { id: 103, first_name: 'Priya', last_name: 'Raman', email: 'priya.raman@acme-cloud.example' },
    {
      id: 104,
      first_name: 'Tom',
      last_name: 'Okafor',
      email: 'tom.okafor@acme-cloud.example',
      active: false,
    },
  ];
  const companies = [
    ['Globex', 'globex.example'],
    ['Initech', 'initech.example'],
    ['Umbrella Health', 'umbrella-health.example'],
    ['Stark Logistics', 'stark-logistics.example'],
    ['Wayne Foods', 'wayne-foods.example'],
    ['Hooli', 'hooli.example'],
    ['Vandelay Industries', 'vandelay.example'],
    ['Pied Piper', 'piedpiper.example'],
  ] as const;
  const accounts: SeedAccount[] = companies.map(([name, domain], i) => ({ id: 201 + i, name, domain }));
  const firstNames = ['Ava', 'Ben', 'Chloe', 'Diego', 'Elena', 'Farah', 'Gus', 'Hana', 'Ivan', 'Jade'];
  const lastNames = ['Moreau', 'Patel', 'Kim', 'Novak', 'Silva', 'Haddad'];
  const titles = ['VP Sales', 'Head of Operations', 'CTO', 'Director of Marketing', 'IT Manager', 'CFO'];
  const people: SeedPerson[] = Array.from({ length: 30 }, (_, i) => {
    const first = firstNames[i % firstNames.length]!;
    const last = lastNames[i % lastNames.length]!;
    const company = companies[i % companies.length]!;
    return {
      id: 301 + i,
      first_name: first,
      last_name: last,
      email_address: `${first}.${last}${i >= 10 ? i : ''}@${company[1]}`.toLowerCase(),
      title: titles[i % titles.length]!,
      account_id: 201 + (i % companies.length),
      owner_id: i < 18 ? 102 : 103,
    };
  });
  const cadences: SeedCadence[] = [
    {
      id: 401,
      name: 'Enterprise Outbound — Q3',
      owner_id: 102,
      steps: [
        { id: 4011, day: 1, type: 'email', name: 'Intro email' },
        { id: 4012, day: 1, type: 'phone', name: 'Intro call' },
        { id: 4013, day: 3, type: 'email', name: 'Case study' },
        { id: 4014, day: 5, type: 'phone', name: 'Follow-up call' },
        { id: 4015, day: 8, type: 'email', name: 'Bump' },
        { id: 4016, day: 12, type: 'other', name: 'LinkedIn message' },
      ],
    },
    {
      id: 402,
      name: 'Inbound Demo Follow-up',
      owner_id: 103,
      team_cadence: true,
      steps: [
        { id: 4021, day: 1, type: 'email', name: 'Thanks for your interest' },
        { id: 4022, day: 2, type: 'phone', name: 'Qualification call' },
        { id: 4023, day: 4, type: 'email', name: 'Demo recap' },
        { id: 4024, day: 7, type: 'email', name: 'Last touch' },
      ],
    },
    {
      id: 403,
      name: 'SaaStr Event Leads',
      owner_id: 101,
      current_state: 'draft',
      steps: [
        { id: 4031, day: 1, type: 'email', name: 'Nice to meet you' },
        { id: 4032, day: 3, type: 'phone', name: 'Call' },
      ],
    },
  ];
  const memberships: SeedMembership[] = people.map((person, i) => {
    const cadence = i < 18 ? cadences[0]! : cadences[1]!;
    const cadenceSteps = cadence.steps!;
    const step = cadenceSteps[i % cadenceSteps.length]!;
    const done = cadenceSteps.slice(0, cadenceSteps.indexOf(step));
    return {
      id: 501 + i,
      cadence_id: cadence.id!,
      person_id: person.id!,
      user_id: cadence.owner_id ?? null,
      // A few people have left their cadence: one finished, one removed.
      current_state: i === 5 ? 'completed' : i === 23 ? 'removed' : 'active',
      step_id: step.id!,
      counts: {
        sent_emails: done.filter((s) => s.type === 'email').length,
        calls: done.filter((s) => s.type === 'phone').length,
        views: done.length > 1 ? 2 : 0,
      },
    };
  });
  return { team: { name: 'Acme Cloud' }, users, accounts, people, cadences, memberships };
}
