import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A fake Outreach (REST API v2, JSON:API 1.0) on loopback, for adapter and end-to-end tests. It
 * follows shared/integrations/API-NOTES.md §2: OAuth authorization-code flow with rotating refresh
 * tokens, Bearer-only access, per-resource scopes, `page[size]` with opaque `links.next` cursors,
 * `filter[...]`, `sort`, `include`, `fields[...]`, `count=true`, JSON:API error objects and a
 * per-user hourly rate limit. It is strict on purpose: a parameter it does not know is refused, so
 * an adapter that works here sends what the vendor documents.
 */

export type FakeUserInput = {
  id?: number;
  firstName: string;
  lastName: string;
  email?: string | null;
  title?: string | null;
  /** Outreach "locks" users that were deactivated. */
  locked?: boolean;
  createdAt?: string;
  updatedAt?: string;
};

export type FakeAccountInput = {
  id?: number;
  name: string;
  domain?: string | null;
  websiteUrl?: string | null;
  industry?: string | null;
  ownerId?: number | null;
  createdAt?: string;
  updatedAt?: string;
};

export type FakeProspectInput = {
  id?: number;
  firstName: string;
  lastName: string;
  emails?: string[];
  /**
   * Outreach's `optedOut` (test/vendor-specs/outreach-2026-12-05.json, `prospect` attributes: "A boolean
   * value representing whether this prospect is currently opted out of all mailings").
   */
  optedOut?: boolean;
  title?: string | null;
  occupation?: string | null;
  /** Free-text company name (Outreach keeps it beside the account relationship). */
  company?: string | null;
  accountId?: number | null;
  ownerId?: number | null;
  createdAt?: string;
  updatedAt?: string;
};

export type FakeStepInput = {
  id?: number;
  stepType?: 'auto_email' | 'manual_email' | 'call' | 'task';
  /** 1-based; defaults to the position in the list. */
  order?: number;
  /** Seconds since the previous step (interval sequences). */
  interval?: number | null;
  /** Day the step runs (date sequences), `YYYY-MM-DD` or an ISO time. */
  date?: string | null;
  createdAt?: string;
  updatedAt?: string;
};

export type FakeSequenceInput = {
  id?: number;
  name: string;
  sequenceType?: 'interval' | 'date';
  enabled?: boolean;
  /**
   * When it was enabled; defaults to the creation time. Outreach's OpenAPI (`sequence.enabledAt`):
   * "The date and time the sequence was enabled, or null if currently disabled" — so a disabled
   * sequence always answers null here, whether it never ran (a draft) or was paused.
   */
  enabledAt?: string | null;
  /**
   * Outreach's OpenAPI (`sequence.lastUsedAt`): "The date and time the sequence was last used".
   * Defaults to null and moves when a prospect is added to the sequence (a sequenceState).
   */
  lastUsedAt?: string | null;
  locked?: boolean;
  ownerId?: number | null;
  tags?: string[];
  steps?: FakeStepInput[];
  createdAt?: string;
  updatedAt?: string;
};

export type FakeSequenceStateInput = {
  id?: number;
  sequenceId: number;
  prospectId: number;
  /** The rep working the prospect (the `user` relationship). */
  userId?: number | null;
  /** The current step, by its order in the sequence (or give `sequenceStepId`). */
  stepOrder?: number | null;
  sequenceStepId?: number | null;
  state?: 'pending' | 'active' | 'paused' | 'finished' | 'opted_out' | 'disabled' | 'failed' | 'bounced';
  deliverCount?: number;
  openCount?: number;
  clickCount?: number;
  replyCount?: number;
  bounceCount?: number;
  callCompletedAt?: string | null;
  repliedAt?: string | null;
  createdAt?: string;
  updatedAt?: string;
};

export type FakeOutreachData = {
  users?: FakeUserInput[];
  accounts?: FakeAccountInput[];
  sequences?: FakeSequenceInput[];
  prospects?: FakeProspectInput[];
  sequenceStates?: FakeSequenceStateInput[];
};

export type FakeOutreachOptions = {
  clientId?: string;
  clientSecret?: string;
  /** Registered redirect URIs; when omitted any absolute http(s) URI is accepted. */
  redirectUris?: string[];
  /** Scopes the app registration selected; default: every scope the fake knows. */
  appScopes?: string[];
  data?: FakeOutreachData;
  orgName?: string;
  /** Requests per user per hour (API-NOTES: 10,000). */
  rateLimitPerHour?: number;
  /** The fake's clock in ms (token expiry, rate-limit windows, updatedAt); default Date.now. */
  now?: () => number;
};

export type FakeRequest = {
  method: string;
  path: string;
  query: Record<string, string>;
  status: number;
};

export type FakeTokenReply = {
  access_token: string;
  token_type: 'bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
  created_at: number;
};

export type FakeResourceType =
  'user' | 'account' | 'prospect' | 'sequence' | 'sequenceStep' | 'sequenceState';

const ACCESS_TOKEN_SECONDS = 7200;
const REFRESH_TOKEN_SECONDS = 14 * 86_400;
const CODE_SECONDS = 600;
const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 1000;
const JSON_API = 'application/vnd.api+json';

type ResourceDef = {
  type: FakeResourceType;
  path: string;
  /** Scope family: `<scope>.read` lets a token list it. */
  scope: string;
  attributes: string[];
  /** Relationship name → related type. */
  toOne: Record<string, FakeResourceType>;
  /** Relationship name → related collection and the relationship pointing back. */
  toMany: Record<string, { type: FakeResourceType; inverse: string }>;
};

/** Outreach's OpenAPI: `custom1` … `custom150` on prospects, `maxLength: 32000`, nullable. */
const CUSTOM_FIELDS = Array.from({ length: 150 }, (_, i) => `custom${i + 1}`);
const CUSTOM_MAX_LENGTH = 32_000;

const COUNTS = ['deliverCount', 'openCount', 'clickCount', 'replyCount', 'bounceCount'];

const RESOURCES: ResourceDef[] = [
  {
    type: 'user',
    path: 'users',
    scope: 'users',
    attributes: [
      'firstName',
      'lastName',
      'name',
      'email',
      'username',
      'title',
      'locked',
      'createdAt',
      'updatedAt',
    ],
    toOne: {},
    toMany: {},
  },
  {
    type: 'account',
    path: 'accounts',
    scope: 'accounts',
    attributes: ['name', 'domain', 'websiteUrl', 'industry', 'customId', 'named', 'createdAt', 'updatedAt'],
    toOne: { owner: 'user' },
    toMany: { prospects: { type: 'prospect', inverse: 'account' } },
  },
  {
    type: 'prospect',
    path: 'prospects',
    scope: 'prospects',
    attributes: [
      'firstName',
      'lastName',
      'emails',
      'optedOut',
      'title',
      'occupation',
      'company',
      'createdAt',
      'updatedAt',
      // The prospect's 150 custom fields (Outreach's OpenAPI `prospect`: custom1…custom150, strings
      // of at most 32,000 characters, nullable); absent from a record until written.
      ...CUSTOM_FIELDS,
    ],
    toOne: { account: 'account', owner: 'user' },
    toMany: { sequenceStates: { type: 'sequenceState', inverse: 'prospect' } },
  },
  {
    type: 'sequence',
    path: 'sequences',
    scope: 'sequences',
    attributes: [
      'name',
      'enabled',
      'enabledAt',
      'lastUsedAt',
      'locked',
      'sequenceType',
      'shareType',
      'scheduleIntervalType',
      'primaryReplyAction',
      'durationInDays',
      'tags',
      'throttleMaxAddsPerDay',
      'sequenceStepCount',
      'createdAt',
      'updatedAt',
    ],
    toOne: { owner: 'user', creator: 'user' },
    toMany: {
      sequenceSteps: { type: 'sequenceStep', inverse: 'sequence' },
      sequenceStates: { type: 'sequenceState', inverse: 'sequence' },
    },
  },
  {
    type: 'sequenceStep',
    path: 'sequenceSteps',
    scope: 'sequenceSteps',
    attributes: [
      'stepType',
      'order',
      'interval',
      'date',
      'displayName',
      'taskNote',
      'taskAutoskipDelay',
      ...COUNTS,
      'createdAt',
      'updatedAt',
    ],
    toOne: { sequence: 'sequence' },
    toMany: {},
  },
  {
    type: 'sequenceState',
    path: 'sequenceStates',
    scope: 'sequenceStates',
    attributes: [
      'state',
      'stateChangedAt',
      'activeAt',
      'pauseReason',
      'errorReason',
      'repliedAt',
      'callCompletedAt',
      ...COUNTS,
      'failureCount',
      'optOutCount',
      'scheduleCount',
      'createdAt',
      'updatedAt',
    ],
    toOne: {
      prospect: 'prospect',
      sequence: 'sequence',
      sequenceStep: 'sequenceStep',
      user: 'user',
      creator: 'user',
      account: 'account',
    },
    toMany: {},
  },
];

const BY_TYPE = new Map(RESOURCES.map((r) => [r.type, r]));
const BY_PATH = new Map(RESOURCES.map((r) => [r.path, r]));
const def = (type: FakeResourceType) => BY_TYPE.get(type)!;

/** Every scope the fake recognises (`<resource>.<read|write|delete|all>`; notes: not additive). */
export const OUTREACH_SCOPES: string[] = [
  ...RESOURCES.map((r) => r.scope),
  'mailboxes',
  'webhooks',
  'calls',
  'tasks',
  'opportunities',
].flatMap((s) => ['read', 'write', 'delete', 'all'].map((a) => `${s}.${a}`));

type Rec = {
  id: number;
  attributes: Record<string, unknown>;
  rels: Record<string, number | null>;
};

type AccessToken = { userId: number; scopes: Set<string>; expiresAt: number; revoked: boolean };
type RefreshToken = {
  userId: number;
  scopes: Set<string>;
  clientId: string;
  expiresAt: number;
  revoked: boolean;
};
type AuthCode = {
  userId: number;
  scopes: Set<string>;
  clientId: string;
  redirectUri: string;
  expiresAt: number;
  used: boolean;
};

type ApiError = {
  status: number;
  id: string;
  title: string;
  detail: string;
  parameter?: string;
  pointer?: string;
};

class Refusal extends Error {
  readonly error: ApiError;
  constructor(error: ApiError) {
    super(error.detail);
    this.error = error;
  }
}

const invalidParam = (parameter: string, detail: string) =>
  new Refusal({ status: 422, id: 'validationError', title: 'Validation Error', detail, parameter });

export type FakeOutreach = Awaited<ReturnType<typeof startFakeOutreach>>;

export async function startFakeOutreach(opts: FakeOutreachOptions = {}) {
  const clientId = opts.clientId ?? 'outreach-test-client';
  const clientSecret = opts.clientSecret ?? 'outreach-test-secret';
  const appScopes = new Set(opts.appScopes ?? OUTREACH_SCOPES);
  const rateLimit = opts.rateLimitPerHour ?? 10_000;
  const now = opts.now ?? Date.now;
  const orgName = opts.orgName ?? 'Acme Outbound';

  const store = new Map<FakeResourceType, Map<number, Rec>>(RESOURCES.map((r) => [r.type, new Map()]));
  const nextId = new Map<FakeResourceType, number>(RESOURCES.map((r) => [r.type, 1]));
  const accessTokens = new Map<string, AccessToken>();
  const refreshTokens = new Map<string, RefreshToken>();
  const codes = new Map<string, AuthCode>();
  const usage = new Map<number, { windowStart: number; count: number }>();
  const failures: { status: number; retryAfter?: number }[] = [];
  const log: FakeRequest[] = [];
  let authorizingUserId: number | null = null;
  let nextConsent: 'approve' | 'deny' = 'approve';
  let lastStamp = 0;

  /** A strictly increasing ISO time, so every change has its own updatedAt. */
  const stamp = () => {
    lastStamp = Math.max(now(), lastStamp + 1);
    return new Date(lastStamp).toISOString();
  };
  const token = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;
  const table = (type: FakeResourceType) => store.get(type)!;

  function insert(
    type: FakeResourceType,
    id: number | undefined,
    attributes: Record<string, unknown>,
    rels: Record<string, number | null>,
  ): number {
    const rows = table(type);
    const newId = id ?? nextId.get(type)!;
    if (rows.has(newId)) throw new Error(`fake Outreach: ${type} ${newId} already exists`);
    nextId.set(type, Math.max(nextId.get(type)!, newId + 1));
    for (const [name, relId] of Object.entries(rels)) {
      const relType = def(type).toOne[name]!;
      if (relId !== null && !table(relType).has(relId)) {
        throw new Error(`fake Outreach: ${type} ${newId} refers to missing ${relType} ${relId}`);
      }
    }
    const updatedAt = (attributes.updatedAt as string | undefined) ?? stamp();
    const createdAt = (attributes.createdAt as string | undefined) ?? updatedAt;
    rows.set(newId, { id: newId, attributes: { ...attributes, createdAt, updatedAt }, rels });
    return newId;
  }

  const controls = {
    addUser(u: FakeUserInput): number {
      const email =
        u.email === undefined ? `${u.firstName}.${u.lastName}@example.com`.toLowerCase() : u.email;
      return insert(
        'user',
        u.id,
        {
          firstName: u.firstName,
          lastName: u.lastName,
          name: `${u.firstName} ${u.lastName}`,
          email,
          username: email?.split('@')[0] ?? null,
          title: u.title ?? null,
          locked: u.locked ?? false,
          createdAt: u.createdAt,
          updatedAt: u.updatedAt,
        },
        {},
      );
    },

    addAccount(a: FakeAccountInput): number {
      return insert(
        'account',
        a.id,
        {
          name: a.name,
          domain: a.domain ?? null,
          websiteUrl: a.websiteUrl ?? (a.domain ? `https://${a.domain}` : null),
          industry: a.industry ?? null,
          customId: null,
          named: false,
          createdAt: a.createdAt,
          updatedAt: a.updatedAt,
        },
        { owner: a.ownerId ?? null },
      );
    },

    addProspect(p: FakeProspectInput): number {
      const account = p.accountId ? table('account').get(p.accountId) : undefined;
      return insert(
        'prospect',
        p.id,
        {
          firstName: p.firstName,
          lastName: p.lastName,
          emails: p.emails ?? [`${p.firstName}.${p.lastName}@example.org`.toLowerCase()],
          optedOut: p.optedOut ?? false,
          title: p.title ?? null,
          occupation: p.occupation ?? null,
          company: p.company ?? (account?.attributes.name as string | undefined) ?? null,
          createdAt: p.createdAt,
          updatedAt: p.updatedAt,
        },
        { account: p.accountId ?? null, owner: p.ownerId ?? null },
      );
    },

    /** A sequence with its steps; returns the ids (steps in the order given). */
    addSequence(s: FakeSequenceInput): { id: number; stepIds: number[] } {
      const enabled = s.enabled ?? true;
      if (!enabled && s.enabledAt) {
        throw new Error('fake Outreach: a disabled sequence has enabledAt null (give lastUsedAt instead)');
      }
      const id = insert(
        'sequence',
        s.id,
        {
          name: s.name,
          enabled,
          enabledAt: enabled ? (s.enabledAt ?? s.createdAt ?? null) : null,
          lastUsedAt: s.lastUsedAt ?? null,
          locked: s.locked ?? false,
          sequenceType: s.sequenceType ?? 'interval',
          shareType: 'shared',
          scheduleIntervalType: 'calendar',
          primaryReplyAction: 'finish',
          durationInDays: null,
          tags: s.tags ?? [],
          throttleMaxAddsPerDay: null,
          sequenceStepCount: s.steps?.length ?? 0,
          createdAt: s.createdAt,
          updatedAt: s.updatedAt,
        },
        { owner: s.ownerId ?? null, creator: s.ownerId ?? null },
      );
      const seq = table('sequence').get(id)!;
      if (seq.attributes.enabledAt === null && enabled) seq.attributes.enabledAt = seq.attributes.createdAt;
      const stepIds = (s.steps ?? []).map((step, i) => controls.addStep(id, { order: i + 1, ...step }));
      return { id, stepIds };
    },

    addStep(sequenceId: number, st: FakeStepInput): number {
      const order = st.order ?? 1;
      const stepType = st.stepType ?? 'auto_email';
      const label = { auto_email: 'Auto Email', manual_email: 'Manual Email', call: 'Call', task: 'Task' }[
        stepType
      ];
      const id = insert(
        'sequenceStep',
        st.id,
        {
          stepType,
          order,
          interval: st.interval ?? (st.date ? null : 0),
          date: st.date ?? null,
          displayName: `Step ${order} (${label})`,
          taskNote: null,
          taskAutoskipDelay: null,
          ...Object.fromEntries(COUNTS.map((c) => [c, 0])),
          createdAt: st.createdAt,
          updatedAt: st.updatedAt,
        },
        { sequence: sequenceId },
      );
      const seq = table('sequence').get(sequenceId)!;
      seq.attributes.sequenceStepCount = [...table('sequenceStep').values()].filter(
        (r) => r.rels.sequence === sequenceId,
      ).length;
      return id;
    },

    addSequenceState(st: FakeSequenceStateInput): number {
      let stepId = st.sequenceStepId ?? null;
      if (stepId === null && st.stepOrder != null) {
        const step = [...table('sequenceStep').values()].find(
          (r) => r.rels.sequence === st.sequenceId && r.attributes.order === st.stepOrder,
        );
        if (!step) throw new Error(`fake Outreach: sequence ${st.sequenceId} has no step ${st.stepOrder}`);
        stepId = step.id;
      }
      const prospect = table('prospect').get(st.prospectId);
      const state = st.state ?? 'active';
      const at = st.updatedAt ?? stamp();
      // Adding a prospect uses the sequence (its lastUsedAt moves; its updatedAt need not).
      const sequence = table('sequence').get(st.sequenceId);
      const used = st.createdAt ?? at;
      if (sequence && String(sequence.attributes.lastUsedAt ?? '') < used)
        sequence.attributes.lastUsedAt = used;
      return insert(
        'sequenceState',
        st.id,
        {
          state,
          stateChangedAt: at,
          activeAt: state === 'pending' ? null : (st.createdAt ?? at),
          pauseReason: state === 'paused' ? 'manual' : null,
          errorReason: state === 'failed' ? 'mailbox_error' : null,
          repliedAt: st.repliedAt ?? null,
          callCompletedAt: st.callCompletedAt ?? null,
          deliverCount: st.deliverCount ?? 0,
          openCount: st.openCount ?? 0,
          clickCount: st.clickCount ?? 0,
          replyCount: st.replyCount ?? 0,
          bounceCount: st.bounceCount ?? (state === 'bounced' ? 1 : 0),
          failureCount: state === 'failed' ? 1 : 0,
          optOutCount: state === 'opted_out' ? 1 : 0,
          scheduleCount: 0,
          createdAt: st.createdAt,
          updatedAt: at,
        },
        {
          prospect: st.prospectId,
          sequence: st.sequenceId,
          sequenceStep: stepId,
          user: st.userId ?? null,
          creator: st.userId ?? null,
          account: prospect?.rels.account ?? null,
        },
      );
    },

    seed(data: FakeOutreachData): void {
      for (const u of data.users ?? []) controls.addUser(u);
      for (const a of data.accounts ?? []) controls.addAccount(a);
      for (const s of data.sequences ?? []) controls.addSequence(s);
      for (const p of data.prospects ?? []) controls.addProspect(p);
      for (const s of data.sequenceStates ?? []) controls.addSequenceState(s);
    },

    /**
     * Changes a record as a user in Outreach would: attributes by name, to-one relationships by id
     * (`{ sequenceStep: 12 }`); always bumps updatedAt. Returns the new updatedAt.
     */
    mutate(type: FakeResourceType, id: number, changes: Record<string, unknown> = {}): string {
      const rec = table(type).get(id);
      if (!rec) throw new Error(`fake Outreach: no ${type} ${id}`);
      for (const [key, value] of Object.entries(changes)) {
        if (key in def(type).toOne) rec.rels[key] = value as number | null;
        else if (def(type).attributes.includes(key)) rec.attributes[key] = value;
        else throw new Error(`fake Outreach: ${type} has no ${key}`);
      }
      // Enabling or disabling a sequence moves enabledAt: null while disabled (OpenAPI `sequence`).
      if (type === 'sequence' && 'enabled' in changes && !('enabledAt' in changes)) {
        rec.attributes.enabledAt = changes.enabled === true ? new Date(now()).toISOString() : null;
      }
      rec.attributes.updatedAt = stamp();
      return rec.attributes.updatedAt as string;
    },

    /** A record's JSON:API attributes (a copy). */
    get(type: FakeResourceType, id: number): Record<string, unknown> | undefined {
      const rec = table(type).get(id);
      return rec && { ...rec.attributes, ...rec.rels };
    },

    ids(type: FakeResourceType): number[] {
      return [...table(type).keys()];
    },

    /** The next `n` API requests (under /api/v2) answer `status`, with Retry-After when given. */
    failNext(n: number, status: number, retryAfterSeconds?: number): void {
      for (let i = 0; i < n; i++) failures.push({ status, retryAfter: retryAfterSeconds });
    },

    /** Every access token issued so far now answers 401 (refresh tokens still work). */
    expireAccessTokens(): void {
      for (const t of accessTokens.values()) t.expiresAt = 0;
    },

    /** The customer disconnected the app: every access and refresh token stops working. */
    revokeAll(): void {
      for (const t of accessTokens.values()) t.revoked = true;
      for (const t of refreshTokens.values()) t.revoked = true;
    },

    /** Who approves the next /oauth/authorize (default: the lowest user id). */
    setAuthorizingUser(userId: number): void {
      authorizingUserId = userId;
    },

    /** The next /oauth/authorize is approved (default) or denied by the user. */
    setNextConsent(decision: 'approve' | 'deny'): void {
      nextConsent = decision;
    },

    /** Mints tokens directly, as if the user had connected (tests that skip the OAuth dance). */
    issueTokens(o: { userId?: number; scopes?: string[] } = {}): FakeTokenReply {
      return mint(o.userId ?? defaultUser(), new Set(o.scopes ?? [...appScopes]), clientId);
    },

    /** The API requests received, oldest first (OAuth endpoints included). */
    requests(): FakeRequest[] {
      return log.map((r) => ({ ...r, query: { ...r.query } }));
    },

    clearRequests(): void {
      log.length = 0;
    },
  };

  function defaultUser(): number {
    if (authorizingUserId !== null) return authorizingUserId;
    const ids = [...table('user').keys()];
    if (!ids.length) throw new Error('fake Outreach: seed a user first (tokens act for a user)');
    return Math.min(...ids);
  }

  function mint(userId: number, scopes: Set<string>, forClient: string): FakeTokenReply {
    const access = token('oa');
    const refresh = token('or');
    const t = now();
    accessTokens.set(access, { userId, scopes, expiresAt: t + ACCESS_TOKEN_SECONDS * 1000, revoked: false });
    refreshTokens.set(refresh, {
      userId,
      scopes,
      clientId: forClient,
      expiresAt: t + REFRESH_TOKEN_SECONDS * 1000,
      revoked: false,
    });
    return {
      access_token: access,
      token_type: 'bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refresh,
      scope: [...scopes].join(' '),
      created_at: Math.floor(t / 1000),
    };
  }

  if (opts.data) controls.seed(opts.data);

  // ---- HTTP ----

  let origin = '';
  const apiBase = () => `${origin}/api/v2`;

  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake.invalid');
    const entry: FakeRequest = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      status: 0,
    };
    log.push(entry);
    res.on('finish', () => {
      entry.status = res.statusCode;
    });
    handle(req, res, url).catch((err: unknown) => {
      if (!res.headersSent) {
        sendErrors(res, {
          status: 500,
          id: 'internalServerError',
          title: 'Internal Server Error',
          detail: String(err),
        });
      } else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (url.pathname === '/oauth/authorize') return authorize(req, res, url);
    if (url.pathname === '/oauth/token') return tokenEndpoint(req, res, url);
    if (url.pathname === '/api/v2' || url.pathname.startsWith('/api/v2/')) return api(req, res, url);
    sendErrors(res, {
      status: 404,
      id: 'resourceNotFound',
      title: 'Resource Not Found',
      detail: `No route for ${url.pathname}.`,
    });
  }

  // ---- OAuth ----

  function authorize(req: IncomingMessage, res: ServerResponse, url: URL): void {
    const q = url.searchParams;
    if (req.method !== 'GET') return sendText(res, 405, 'Method Not Allowed');
    // Unknown client or redirect URI: show an error page, never redirect (RFC 6749 §4.1.2.1).
    if (q.get('client_id') !== clientId) return sendText(res, 400, 'Invalid client_id: no such application.');
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!isAllowedRedirect(redirectUri)) {
      return sendText(res, 400, 'Invalid redirect_uri: not registered for this application.');
    }
    const back = (params: Record<string, string>) => {
      const to = new URL(redirectUri);
      for (const [k, v] of Object.entries(params)) to.searchParams.set(k, v);
      const state = q.get('state');
      if (state !== null) to.searchParams.set('state', state);
      res.writeHead(302, { location: to.toString() }).end();
    };
    if (q.get('response_type') !== 'code') {
      return back({ error: 'unsupported_response_type', error_description: 'response_type must be code' });
    }
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    const bad = scopes.filter((s) => !appScopes.has(s));
    if (!scopes.length || bad.length) {
      return back({
        error: 'invalid_scope',
        error_description: scopes.length
          ? `Unknown or unselected scope: ${bad.join(' ')}`
          : 'scope is required',
      });
    }
    if (nextConsent === 'deny') {
      nextConsent = 'approve';
      return back({ error: 'access_denied', error_description: 'The user denied access.' });
    }
    const code = token('oc');
    codes.set(code, {
      userId: defaultUser(),
      scopes: new Set(scopes),
      clientId,
      redirectUri,
      expiresAt: now() + CODE_SECONDS * 1000,
      used: false,
    });
    back({ code });
  }

  function isAllowedRedirect(uri: string): boolean {
    if (!URL.canParse(uri)) return false;
    const u = new URL(uri);
    if (!['http:', 'https:'].includes(u.protocol) || u.hash) return false;
    return !opts.redirectUris || opts.redirectUris.includes(uri);
  }

  async function tokenEndpoint(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    if (req.method !== 'POST') return sendOAuthError(res, 405, 'invalid_request', 'Use POST.');
    const raw = await readBody(req);
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim();
    let params: Record<string, string>;
    if (type === 'application/json') {
      try {
        params = Object.fromEntries(
          Object.entries(JSON.parse(raw || '{}') as Record<string, unknown>).map(([k, v]) => [k, String(v)]),
        );
      } catch {
        return sendOAuthError(res, 400, 'invalid_request', 'Body is not valid JSON.');
      }
    } else if (type === 'application/x-www-form-urlencoded' || raw === '') {
      params = Object.fromEntries(new URLSearchParams(raw));
    } else {
      return sendOAuthError(res, 400, 'invalid_request', `Unsupported content type ${type}.`);
    }
    // Some public clients send the fields as query parameters (API-NOTES: accept observed variants).
    params = { ...Object.fromEntries(url.searchParams), ...params };
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? '');
    if (basic) {
      const [id, secret] = Buffer.from(basic[1]!, 'base64').toString().split(':');
      params.client_id ??= decodeURIComponent(id ?? '');
      params.client_secret ??= decodeURIComponent(secret ?? '');
    }
    if (params.client_id !== clientId || params.client_secret !== clientSecret) {
      return sendOAuthError(res, 401, 'invalid_client', 'Client authentication failed.');
    }
    if (params.grant_type === 'authorization_code') {
      const code = codes.get(params.code ?? '');
      if (!code || code.used || code.expiresAt < now() || code.clientId !== params.client_id) {
        return sendOAuthError(
          res,
          400,
          'invalid_grant',
          'The authorization code is invalid, expired or used.',
        );
      }
      if (code.redirectUri !== params.redirect_uri) {
        return sendOAuthError(
          res,
          400,
          'invalid_grant',
          'redirect_uri does not match the authorization request.',
        );
      }
      code.used = true;
      return sendOAuth(res, 200, mint(code.userId, code.scopes, code.clientId));
    }
    if (params.grant_type === 'refresh_token') {
      const old = refreshTokens.get(params.refresh_token ?? '');
      if (!old || old.revoked || old.expiresAt < now() || old.clientId !== params.client_id) {
        return sendOAuthError(res, 400, 'invalid_grant', 'The refresh token is invalid, expired or revoked.');
      }
      old.revoked = true; // rotation: the old refresh token is single-use
      return sendOAuth(res, 200, mint(old.userId, old.scopes, old.clientId));
    }
    return sendOAuthError(res, 400, 'unsupported_grant_type', `grant_type ${params.grant_type ?? '(none)'}.`);
  }

  // ---- API ----

  async function api(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void> {
    const body = await readBody(req);
    const failure = failures.shift();
    if (failure) {
      const headers: Record<string, string> = {};
      if (failure.retryAfter !== undefined) headers['retry-after'] = String(failure.retryAfter);
      return sendErrors(res, errorFor(failure.status), headers);
    }

    const auth = /^Bearer ([^\s]+)$/i.exec(req.headers.authorization ?? '');
    const access = auth ? accessTokens.get(auth[1]!) : undefined;
    if (!access || access.revoked || access.expiresAt <= now()) {
      return sendErrors(
        res,
        {
          status: 401,
          id: 'unauthorized',
          title: 'Unauthorized',
          detail: auth
            ? 'The access token is invalid, expired or revoked.'
            : 'A Bearer access token is required.',
        },
        { 'www-authenticate': `Bearer error="${auth ? 'invalid_token' : 'invalid_request'}"` },
      );
    }

    const limitHeaders = countRequest(access.userId);
    if (!limitHeaders) {
      const u = usage.get(access.userId)!;
      const resetAt = u.windowStart + 3_600_000;
      const retryAfter = Math.max(1, Math.ceil((resetAt - now()) / 1000));
      return sendErrors(
        res,
        {
          status: 429,
          id: 'rateLimitExceeded',
          title: 'Rate Limit Exceeded',
          detail: `You have exceeded your permitted rate limit of ${rateLimit}; please try again at ${new Date(resetAt).toISOString()}.`,
        },
        {
          'retry-after': String(retryAfter),
          'x-ratelimit-limit': String(rateLimit),
          'x-ratelimit-remaining': '0',
          'x-ratelimit-reset': String(Math.floor(resetAt / 1000)),
        },
      );
    }

    try {
      const accept = req.headers.accept;
      if (accept && !/application\/vnd\.api\+json|application\/json|application\/\*|\*\/\*/.test(accept)) {
        throw new Refusal({
          status: 406,
          id: 'notAcceptable',
          title: 'Not Acceptable',
          detail: `Responses are ${JSON_API}; the Accept header asked for ${accept}.`,
        });
      }
      // Every request, GETs included, names the JSON:API media type: "All requests must specify the
      // JSON API media type (application/vnd.api+json) within the Content-Type request header.
      // Requests failing to specify this content type will receive a 415" (Outreach developer portal,
      // "Making requests › Content Negotiation", https://developers.outreach.io/api/making-requests/).
      requireMediaType(req);
      const parts = url.pathname.split('/').filter(Boolean).slice(2); // after api, v2
      if (parts.length === 0) {
        if (req.method !== 'GET') throw methodNotAllowed(req.method);
        return sendJson(res, 200, rootDocument(access.userId), limitHeaders);
      }
      const resource = BY_PATH.get(parts[0]!);
      if (!resource || parts.length > 2) {
        throw new Refusal({
          status: 404,
          id: 'resourceNotFound',
          title: 'Resource Not Found',
          detail: `Could not find resource ${url.pathname}.`,
        });
      }
      if (req.method === 'GET') {
        requireScope(access, resource, 'read');
        const doc =
          parts.length === 2
            ? showDocument(resource, parts[1]!, url.searchParams, access)
            : listDocument(resource, url.searchParams, access);
        return sendJson(res, 200, doc, limitHeaders);
      }
      if (req.method === 'PATCH' && parts.length === 2) {
        requireScope(access, resource, 'write');
        return sendJson(res, 200, patchDocument(resource, parts[1]!, body), limitHeaders);
      }
      throw methodNotAllowed(req.method);
    } catch (err) {
      if (err instanceof Refusal) return sendErrors(res, err.error, limitHeaders);
      throw err;
    }
  }

  /** Counts a request against the user's hourly window; null when over the limit. */
  function countRequest(userId: number): Record<string, string> | null {
    const t = now();
    let u = usage.get(userId);
    if (!u || t >= u.windowStart + 3_600_000) {
      u = { windowStart: t - (t % 3_600_000), count: 0 };
      usage.set(userId, u);
    }
    if (u.count >= rateLimit) return null;
    u.count++;
    return {
      'x-ratelimit-limit': String(rateLimit),
      'x-ratelimit-remaining': String(rateLimit - u.count),
      'x-ratelimit-reset': String(Math.floor((u.windowStart + 3_600_000) / 1000)),
    };
  }

  function requireScope(access: AccessToken, resource: ResourceDef, action: 'read' | 'write'): void {
    const wanted = `${resource.scope}.${action}`;
    if (access.scopes.has(wanted) || access.scopes.has(`${resource.scope}.all`)) return;
    throw new Refusal({
      status: 403,
      id: 'unauthorizedOauthScope',
      title: 'Unauthorized OAuth Scope',
      detail: `The access token lacks the ${wanted} scope.`,
    });
  }

  function requireMediaType(req: IncomingMessage): void {
    const type = req.headers['content-type'] ?? '';
    if (type.split(';')[0]!.trim() !== JSON_API || type.includes(';')) {
      throw new Refusal({
        status: 415,
        id: 'unsupportedMediaType',
        title: 'Unsupported Media Type',
        detail: `Expected Content-Type header to be '${JSON_API}' (without media type parameters).`,
      });
    }
  }

  const methodNotAllowed = (method = 'GET') =>
    new Refusal({
      status: 405,
      id: 'methodNotAllowed',
      title: 'Method Not Allowed',
      detail: `${method} is not supported here.`,
    });

  function rootDocument(userId: number) {
    const user = table('user').get(userId);
    return {
      meta: {
        user: user
          ? {
              id: user.id,
              email: user.attributes.email,
              firstName: user.attributes.firstName,
              lastName: user.attributes.lastName,
              name: user.attributes.name,
            }
          : { id: userId },
        org: { name: orgName, shortname: orgName.toLowerCase().replace(/[^a-z0-9]+/g, '') },
      },
    };
  }

  const RESERVED =
    /^(page\[(size|after)\]|count|sort|include|filter\[[A-Za-z]+\](\[id\])?|fields\[[A-Za-z]+\])$/;

  function listDocument(resource: ResourceDef, q: URLSearchParams, access: AccessToken) {
    for (const key of q.keys()) {
      if (!RESERVED.test(key)) {
        throw invalidParam(
          key,
          key.startsWith('page[')
            ? `${key} is not supported; follow links.next to page.`
            : `Unknown query parameter ${key}.`,
        );
      }
    }
    const size = parsePageSize(q.get('page[size]'));
    const count = parseBoolean('count', q.get('count'));
    const sort = parseSort(resource, q.get('sort'));
    const includes = parseIncludes(resource, q.get('include'), access);
    const fields = parseFields(q);

    let rows = [...table(resource.type).values()].filter(filterFor(resource, q));
    rows.sort((a, b) => compareRows(sort, a, b));
    const total = rows.length;
    const after = q.get('page[after]');
    if (after !== null) {
      const cursor = decodeCursor(after, q.get('sort') ?? '');
      rows = rows.filter((r) => compareKeys(sort, keyOf(sort, r), cursor) > 0);
    }
    const page = rows.slice(0, size);
    const more = rows.length > size;

    const self = (extra: Record<string, string | null>) => {
      const params = new URLSearchParams(q);
      for (const [k, v] of Object.entries(extra)) {
        if (v === null) params.delete(k);
        else params.set(k, v);
      }
      return `${apiBase()}/${resource.path}?${params}`;
    };
    const last = page.at(-1);
    const doc: Record<string, unknown> = {
      data: page.map((r) => serialize(resource, r, fields)),
      links: {
        first: self({ 'page[after]': null }),
        ...(more && last
          ? { next: self({ 'page[after]': encodeCursor(keyOf(sort, last), q.get('sort') ?? '') }) }
          : {}),
      },
    };
    if (includes.length) doc.included = included(resource, page, includes, fields);
    if (count) doc.meta = { count: total };
    return doc;
  }

  function showDocument(resource: ResourceDef, rawId: string, q: URLSearchParams, access: AccessToken) {
    for (const key of q.keys()) {
      if (key !== 'include' && !/^fields\[[A-Za-z]+\]$/.test(key)) {
        throw invalidParam(key, `Unknown query parameter ${key}.`);
      }
    }
    const rec = findRecord(resource, rawId);
    const includes = parseIncludes(resource, q.get('include'), access);
    const fields = parseFields(q);
    const doc: Record<string, unknown> = { data: serialize(resource, rec, fields) };
    if (includes.length) doc.included = included(resource, [rec], includes, fields);
    return doc;
  }

  function patchDocument(resource: ResourceDef, rawId: string, raw: string) {
    const rec = findRecord(resource, rawId);
    let body: { data?: { type?: unknown; id?: unknown; attributes?: Record<string, unknown> } };
    try {
      body = JSON.parse(raw) as typeof body;
    } catch {
      throw new Refusal({
        status: 400,
        id: 'badRequest',
        title: 'Bad Request',
        detail: 'The body is not valid JSON.',
      });
    }
    if (body.data?.type !== resource.type || Number(body.data.id) !== rec.id) {
      throw new Refusal({
        status: 409,
        id: 'conflict',
        title: 'Conflict',
        detail: `data must be {type: "${resource.type}", id: ${rec.id}}.`,
        pointer: '/data',
      });
    }
    for (const [key, value] of Object.entries(body.data.attributes ?? {})) {
      if (!resource.attributes.includes(key) || ['createdAt', 'updatedAt'].includes(key)) {
        throw new Refusal({
          status: 422,
          id: 'validationError',
          title: 'Validation Error',
          detail: `${key} is not a writable attribute of ${resource.type}.`,
          pointer: `/data/attributes/${key}`,
        });
      }
      if (
        CUSTOM_FIELDS.includes(key) &&
        value !== null &&
        (typeof value !== 'string' || value.length > CUSTOM_MAX_LENGTH)
      ) {
        throw new Refusal({
          status: 422,
          id: 'validationError',
          title: 'Validation Error',
          detail: `${key} must be a string of at most ${CUSTOM_MAX_LENGTH} characters.`,
          pointer: `/data/attributes/${key}`,
        });
      }
      rec.attributes[key] = value;
    }
    rec.attributes.updatedAt = stamp();
    return { data: serialize(resource, rec, new Map()) };
  }

  function findRecord(resource: ResourceDef, rawId: string): Rec {
    const rec = /^\d+$/.test(rawId) ? table(resource.type).get(Number(rawId)) : undefined;
    if (!rec) {
      throw new Refusal({
        status: 404,
        id: 'resourceNotFound',
        title: 'Resource Not Found',
        detail: `Could not find '${resource.type}' with ID '${rawId}'.`,
      });
    }
    return rec;
  }

  function parsePageSize(raw: string | null): number {
    if (raw === null) return DEFAULT_PAGE_SIZE;
    const n = Number(raw);
    if (!/^\d+$/.test(raw) || n < 1 || n > MAX_PAGE_SIZE) {
      throw invalidParam('page[size]', `page[size] must be a whole number from 1 to ${MAX_PAGE_SIZE}.`);
    }
    return n;
  }

  function parseBoolean(name: string, raw: string | null): boolean {
    if (raw === null) return false;
    if (raw !== 'true' && raw !== 'false') throw invalidParam(name, `${name} must be true or false.`);
    return raw === 'true';
  }

  type SortKey = { field: string; desc: boolean };

  function parseSort(resource: ResourceDef, raw: string | null): SortKey[] {
    const keys: SortKey[] = (raw ?? '')
      .split(',')
      .filter(Boolean)
      .map((s) => ({ field: s.replace(/^-/, ''), desc: s.startsWith('-') }));
    for (const k of keys) {
      if (k.field !== 'id' && !resource.attributes.includes(k.field)) {
        throw invalidParam('sort', `Cannot sort ${resource.path} by ${k.field}.`);
      }
    }
    // The id breaks ties, which keeps the cursors stable.
    return [...keys, { field: 'id', desc: keys[0]?.desc ?? false }];
  }

  const valueOf = (r: Rec, field: string): unknown => (field === 'id' ? r.id : r.attributes[field]);
  const keyOf = (sort: SortKey[], r: Rec) => sort.map((k) => valueOf(r, k.field));

  function compareValues(a: unknown, b: unknown): number {
    if (a === b) return 0;
    if (a === null || a === undefined) return -1;
    if (b === null || b === undefined) return 1;
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return String(a) < String(b) ? -1 : 1;
  }

  function compareKeys(sort: SortKey[], a: unknown[], b: unknown[]): number {
    for (const [i, k] of sort.entries()) {
      const c = compareValues(a[i], b[i]);
      if (c !== 0) return k.desc ? -c : c;
    }
    return 0;
  }

  const compareRows = (sort: SortKey[], a: Rec, b: Rec) => compareKeys(sort, keyOf(sort, a), keyOf(sort, b));

  const encodeCursor = (key: unknown[], sort: string) =>
    Buffer.from(JSON.stringify({ s: sort, k: key })).toString('base64url');

  function decodeCursor(raw: string, sort: string): unknown[] {
    try {
      const c = JSON.parse(Buffer.from(raw, 'base64url').toString()) as { s?: unknown; k?: unknown };
      if (c.s === sort && Array.isArray(c.k)) return c.k;
    } catch {
      // falls through to the refusal below
    }
    throw invalidParam('page[after]', 'page[after] is not a cursor this request produced.');
  }

  function filterFor(resource: ResourceDef, q: URLSearchParams): (r: Rec) => boolean {
    const tests: ((r: Rec) => boolean)[] = [];
    for (const [key, value] of q) {
      const m = /^filter\[([A-Za-z]+)\](\[id\])?$/.exec(key);
      if (!m) continue;
      const [, field, idSuffix] = m as unknown as [string, string, string | undefined];
      if (idSuffix) {
        if (!(field in resource.toOne))
          throw invalidParam(key, `Cannot filter ${resource.path} by ${field}.`);
        const ids = parseIds(key, value);
        tests.push((r) => r.rels[field] != null && ids.has(r.rels[field]!));
      } else if (field === 'id') {
        const ids = parseIds(key, value);
        tests.push((r) => ids.has(r.id));
      } else if (field === 'createdAt' || field === 'updatedAt') {
        const [from, to] = parseRange(key, value);
        tests.push((r) => {
          const t = Date.parse(r.attributes[field] as string);
          return t >= from && t <= to;
        });
      } else if (resource.attributes.includes(field)) {
        const wanted = new Set(value.split(','));
        tests.push((r) => {
          const v = r.attributes[field];
          return Array.isArray(v) ? v.some((x) => wanted.has(String(x))) : wanted.has(String(v));
        });
      } else {
        throw invalidParam(key, `Cannot filter ${resource.path} by ${field}.`);
      }
    }
    return (r) => tests.every((t) => t(r));
  }

  function parseIds(key: string, value: string): Set<number> {
    const parts = value.split(',');
    if (!parts.every((p) => /^\d+$/.test(p))) {
      throw invalidParam(key, `${key} must be a comma-separated list of ids.`);
    }
    return new Set(parts.map(Number));
  }

  /** `a..b` (inclusive; `neginf`/`inf` open a side) or a single time. */
  function parseRange(key: string, value: string): [number, number] {
    const [a, b = a] = value.split('..');
    const at = (s: string | undefined, open: string, fallback: number) => {
      if (s === open) return fallback;
      const t = s && /^\d{4}-\d{2}-\d{2}/.test(s) ? Date.parse(s) : NaN;
      if (!Number.isFinite(t)) {
        throw invalidParam(key, `${key} must be an ISO 8601 time or a range like 2024-01-01T00:00:00Z..inf.`);
      }
      return t;
    };
    return [at(a, 'neginf', -Infinity), at(b, 'inf', Infinity)];
  }

  function parseIncludes(resource: ResourceDef, raw: string | null, access: AccessToken): string[][] {
    const paths = (raw ?? '')
      .split(',')
      .filter(Boolean)
      .map((p) => p.split('.'));
    for (const path of paths) {
      let at = resource;
      for (const name of path) {
        const next = at.toOne[name];
        if (!next) {
          throw invalidParam('include', `${at.type} has no to-one relationship ${name} to include.`);
        }
        at = def(next);
        requireScope(access, at, 'read');
      }
    }
    return paths;
  }

  function parseFields(q: URLSearchParams): Map<string, Set<string>> {
    const fields = new Map<string, Set<string>>();
    for (const [key, value] of q) {
      const m = /^fields\[([A-Za-z]+)\]$/.exec(key);
      if (!m) continue;
      const r = BY_TYPE.get(m[1] as FakeResourceType);
      if (!r) throw invalidParam(key, `Unknown resource type ${m[1]}.`);
      const names = value.split(',').filter(Boolean);
      const unknown = names.filter((n) => !r.attributes.includes(n) && !(n in r.toOne) && !(n in r.toMany));
      if (unknown.length) throw invalidParam(key, `${r.type} has no field ${unknown.join(', ')}.`);
      fields.set(r.type, new Set(names));
    }
    return fields;
  }

  function included(resource: ResourceDef, rows: Rec[], paths: string[][], fields: Map<string, Set<string>>) {
    const seen = new Set(rows.map((r) => `${resource.type}:${r.id}`));
    const out: unknown[] = [];
    for (const path of paths) {
      let current: { def: ResourceDef; rec: Rec }[] = rows.map((rec) => ({ def: resource, rec }));
      for (const name of path) {
        const next: { def: ResourceDef; rec: Rec }[] = [];
        for (const { def: d, rec } of current) {
          const relType = d.toOne[name]!;
          const relId = rec.rels[name];
          const related = relId == null ? undefined : table(relType).get(relId);
          if (!related) continue;
          next.push({ def: def(relType), rec: related });
          const key = `${relType}:${related.id}`;
          if (!seen.has(key)) {
            seen.add(key);
            out.push(serialize(def(relType), related, fields));
          }
        }
        current = next;
      }
    }
    return out;
  }

  function serialize(resource: ResourceDef, rec: Rec, fields: Map<string, Set<string>>) {
    const only = fields.get(resource.type);
    const keep = (name: string) => !only || only.has(name);
    const self = `${apiBase()}/${resource.path}/${rec.id}`;
    const relationships: Record<string, unknown> = {};
    for (const [name, type] of Object.entries(resource.toOne)) {
      if (!keep(name)) continue;
      const id = rec.rels[name] ?? null;
      relationships[name] = { data: id === null ? null : { type, id } };
    }
    for (const [name, many] of Object.entries(resource.toMany)) {
      if (!keep(name)) continue;
      const related = `${apiBase()}/${def(many.type).path}?${encodeURIComponent(`filter[${many.inverse}][id]`)}=${rec.id}`;
      relationships[name] = { links: { related } };
    }
    return {
      type: resource.type,
      id: rec.id,
      attributes: Object.fromEntries(Object.entries(rec.attributes).filter(([k]) => keep(k))),
      relationships,
      links: { self },
    };
  }

  // ---- replies ----

  function errorFor(status: number): ApiError {
    if (status === 429) {
      return {
        status,
        id: 'rateLimitExceeded',
        title: 'Rate Limit Exceeded',
        detail: 'You have exceeded your permitted rate limit; please try again later.',
      };
    }
    if (status === 503) {
      return { status, id: 'serviceUnavailable', title: 'Service Unavailable', detail: 'Please retry.' };
    }
    return {
      status,
      id: 'internalServerError',
      title: 'Internal Server Error',
      detail: `Injected ${status}.`,
    };
  }

  function sendErrors(res: ServerResponse, e: ApiError, headers: Record<string, string> = {}): void {
    const source = e.pointer ? { pointer: e.pointer } : e.parameter ? { parameter: e.parameter } : undefined;
    sendJson(
      res,
      e.status,
      { errors: [{ id: e.id, title: e.title, detail: e.detail, ...(source && { source }) }] },
      headers,
    );
  }

  function sendJson(
    res: ServerResponse,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
  ) {
    res.writeHead(status, { 'content-type': JSON_API, ...headers }).end(JSON.stringify(body));
  }

  /** The OAuth server answers plain JSON (RFC 6749 §5), not JSON:API. */
  function sendOAuth(res: ServerResponse, status: number, body: unknown) {
    res
      .writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' })
      .end(JSON.stringify(body));
  }

  function sendOAuthError(res: ServerResponse, status: number, error: string, description: string) {
    sendOAuth(res, status, { error, error_description: description });
  }

  function sendText(res: ServerResponse, status: number, text: string) {
    res.writeHead(status, { 'content-type': 'text/plain; charset=utf-8' }).end(text);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    apiUrl: apiBase(),
    authUrl: origin,
    clientId,
    clientSecret,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
    ...controls,
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A believable small Outreach org for end-to-end tests: 3 reps, 8 accounts, 30 prospects and three
 * sequences (two interval sequences, one date sequence running around `now`; one paused), with
 * prospects at various steps and states. Deterministic.
 */
export function outreachDemoData(now = Date.now()): FakeOutreachData {
  let seed = 20_240_601;
  const rand = () => {
    // mulberry32: a tiny deterministic generator
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const day = 86_400;
  const iso = (msAgo: number) => new Date(now - msAgo).toISOString();
  const today = new Date(now);
  const dateIn = (days: number) =>
    new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() + days))
      .toISOString()
      .slice(0, 10);

  const users: FakeUserInput[] = [
    { id: 101, firstName: 'Dana', lastName: 'Reyes', title: 'SDR Manager', updatedAt: iso(90 * 864e5) },
    {
      id: 102,
      firstName: 'Sam',
      lastName: 'Okafor',
      title: 'Sales Development Rep',
      updatedAt: iso(60 * 864e5),
    },
    {
      id: 103,
      firstName: 'Lee',
      lastName: 'Park',
      title: 'Sales Development Rep',
      updatedAt: iso(45 * 864e5),
    },
  ].map((u) => ({ ...u, email: `${u.firstName}.${u.lastName}@acme-outbound.example`.toLowerCase() }));

  const companies = [
    ['Northwind Traders', 'northwind.example', 'Wholesale'],
    ['Contoso Health', 'contoso-health.example', 'Healthcare'],
    ['Fabrikam Robotics', 'fabrikam.example', 'Manufacturing'],
    ['Tailspin Travel', 'tailspin.example', 'Travel'],
    ['Wide World Importers', 'wideworld.example', 'Logistics'],
    ['Litware Analytics', 'litware.example', 'Software'],
    ['Proseware Legal', 'proseware.example', 'Legal'],
    ['Adventure Works Cycles', 'adventure-works.example', 'Retail'],
  ] as const;
  const accounts: FakeAccountInput[] = companies.map(([name, domain, industry], i) => ({
    id: 501 + i,
    name,
    domain,
    industry,
    ownerId: users[i % users.length]!.id,
    updatedAt: iso((40 - i) * 864e5),
  }));

  const sequences: FakeSequenceInput[] = [
    {
      id: 201,
      name: 'Q3 Outbound — VP Sales',
      sequenceType: 'interval',
      enabled: true,
      ownerId: 101,
      tags: ['outbound'],
      createdAt: iso(30 * 864e5),
      updatedAt: iso(20 * 864e5),
      // days 1, 2, 4, 8, 15
      steps: [
        { stepType: 'auto_email', interval: 300 },
        { stepType: 'call', interval: day },
        { stepType: 'manual_email', interval: 2 * day },
        { stepType: 'call', interval: 4 * day },
        { stepType: 'auto_email', interval: 7 * day },
      ],
    },
    {
      id: 202,
      name: 'Webinar follow-up',
      sequenceType: 'date',
      enabled: true,
      ownerId: 102,
      tags: ['event'],
      createdAt: iso(10 * 864e5),
      updatedAt: iso(9 * 864e5),
      // days 1, 3, 6, 10 around today
      steps: [
        { stepType: 'auto_email', date: dateIn(-2) },
        { stepType: 'call', date: dateIn(0) },
        { stepType: 'auto_email', date: dateIn(3) },
        { stepType: 'task', date: dateIn(7) },
      ],
    },
    {
      id: 203,
      name: 'Re-engage closed-lost',
      sequenceType: 'interval',
      enabled: false,
      lastUsedAt: iso(50 * 864e5),
      ownerId: 103,
      tags: ['nurture'],
      createdAt: iso(80 * 864e5),
      updatedAt: iso(15 * 864e5),
      // days 1, 8, 22
      steps: [
        { stepType: 'auto_email', interval: 0 },
        { stepType: 'auto_email', interval: 7 * day },
        { stepType: 'call', interval: 14 * day },
      ],
    },
  ];

  const first = ['Ava', 'Ben', 'Chloe', 'Diego', 'Elif', 'Farah', 'Gus', 'Hana', 'Ivan', 'Jade'];
  const last = ['Nguyen', 'Schmidt', 'Rossi', 'Kowalski', 'Haddad', 'Silva', 'Murphy', 'Tanaka'];
  const titles = [
    'VP Sales',
    'Head of Revenue Operations',
    'Director of Sales',
    'CRO',
    'Sales Operations Manager',
  ];
  const prospects: FakeProspectInput[] = [];
  const sequenceStates: FakeSequenceStateInput[] = [];
  const states = [
    'active',
    'active',
    'active',
    'active',
    'paused',
    'finished',
    'pending',
    'bounced',
  ] as const;
  for (let i = 0; i < 30; i++) {
    const account = accounts[i % accounts.length]!;
    const firstName = first[i % first.length]!;
    const lastName = last[(i * 3) % last.length]!;
    const id = 1001 + i;
    prospects.push({
      id,
      firstName,
      lastName,
      title: pick(titles),
      emails: [`${firstName}.${lastName}${i}@${account.domain}`.toLowerCase()],
      accountId: account.id!,
      ownerId: account.ownerId!,
      updatedAt: iso((30 - i) * 36e5),
    });
    const seq = sequences[i % 3]!;
    const state = pick(states);
    const stepOrder = state === 'pending' ? 1 : 1 + Math.floor(rand() * seq.steps!.length);
    sequenceStates.push({
      id: 3001 + i,
      sequenceId: seq.id!,
      prospectId: id,
      userId: pick(users).id!,
      stepOrder,
      state,
      deliverCount: state === 'pending' ? 0 : stepOrder - 1 + (rand() < 0.5 ? 1 : 0),
      openCount: Math.floor(rand() * 4),
      replyCount: state === 'finished' && rand() < 0.5 ? 1 : 0,
      updatedAt: iso((30 - i) * 18e5),
    });
  }
  return { users, accounts, sequences, prospects, sequenceStates };
}
