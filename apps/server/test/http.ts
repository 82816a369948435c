import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { BUILT_IN_ROLES } from '@rally/shared';
import type { BuiltInRole } from '@rally/shared';
import { randomUUID } from 'node:crypto';
import { clients, memberships, users } from '../src/db/schema/index.ts';
import { hash } from '@node-rs/argon2';

type WriteOptions = Omit<InjectOptions, 'url' | 'method' | 'payload'> & {
  csrf?: string | false;
  clientId?: string | null;
};

/**
 * A browser-like caller for `app.inject`: keeps cookies, sends back the CSRF token of the last
 * response in `x-xsrf-token` on writes, and `x-client-id` when a client is chosen.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  csrf: string | undefined;
  clientId: string | undefined;
  private readonly app: FastifyInstance;

  constructor(app: FastifyInstance) {
    this.app = app;
  }

  async request(
    opts: InjectOptions & { csrf?: string | false; clientId?: string | null },
  ): Promise<LightMyRequestResponse> {
    const method = (opts.method ?? 'GET').toUpperCase();
    if (
      ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method) &&
      this.csrf === undefined &&
      opts.csrf === undefined
    ) {
      await this.request({ url: '/v1/api/auth/csrf' });
    }
    const headers: Record<string, string> = { ...(opts.headers as Record<string, string> | undefined) };
    if (this.cookies.size) headers.cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const csrf = opts.csrf === undefined ? this.csrf : opts.csrf;
    if (csrf && ['POST', 'PUT', 'PATCH', 'DELETE'].includes(method)) headers['x-xsrf-token'] = csrf;
    const clientId = opts.clientId === undefined ? this.clientId : opts.clientId;
    if (clientId) headers['x-client-id'] = clientId;
    const res = await this.app.inject({ ...opts, method: method as InjectOptions['method'], headers });
    for (const c of res.cookies as { name: string; value: string; expires?: Date; maxAge?: number }[]) {
      const expired = (c.expires && c.expires.getTime() < Date.now()) || c.maxAge === 0 || c.value === '';
      if (expired) this.cookies.delete(c.name);
      else this.cookies.set(c.name, c.value);
    }
    const token = res.headers['x-xsrf-token'];
    if (typeof token === 'string') this.csrf = token;
    return res;
  }

  get(url: string, opts: Omit<InjectOptions, 'url' | 'method'> & { clientId?: string | null } = {}) {
    return this.request({ ...opts, url, method: 'GET' });
  }
  post(url: string, payload?: unknown, opts: WriteOptions = {}) {
    return this.write('POST', url, payload, opts);
  }
  patch(url: string, payload?: unknown, opts: WriteOptions = {}) {
    return this.write('PATCH', url, payload, opts);
  }
  put(url: string, payload?: unknown, opts: WriteOptions = {}) {
    return this.write('PUT', url, payload, opts);
  }
  delete(url: string, payload?: unknown, opts: WriteOptions = {}) {
    return this.write('DELETE', url, payload, opts);
  }
  private write(
    method: 'POST' | 'PATCH' | 'PUT' | 'DELETE',
    url: string,
    payload: unknown,
    opts: WriteOptions,
  ) {
    return this.request({ ...opts, url, method, payload: payload as InjectOptions['payload'] });
  }

  async signIn(email: string, password: string): Promise<this> {
    const res = await this.post('/v1/api/auth', { email, password });
    if (res.statusCode !== 200) throw new Error(`sign-in failed: ${res.statusCode} ${res.body}`);
    return this;
  }
}

export const PASSWORD = 'correct horse battery';

let passwordHash: Promise<string> | undefined;
/**
 * PASSWORD's argon2id hash for the users tests make, made once per worker at argon2's lowest cost.
 * Sign-in verifies it with the production code (verifyPassword reads the cost from the hash): at
 * production's cost (lib/passwords.ts) every makeUser and every sign-in of its user took about
 * 20 ms of CPU each, in thousands of tests per API run. Hashes the app itself makes (sign-up, a new
 * password) keep production's cost, checked in lib/passwords.test.ts.
 */
function testPasswordHash(): Promise<string> {
  // algorithm 2 is Argon2id (a const enum in the package's types).
  passwordHash ??= hash(PASSWORD, { algorithm: 2, memoryCost: 64, timeCost: 1, parallelism: 1 });
  return passwordHash;
}

let counter = 0;
/** Creates a client and returns its id. */
export async function makeClient(app: FastifyInstance, name = `Client ${++counter}`): Promise<string> {
  const [c] = await app.db.insert(clients).values({ name }).returning({ id: clients.id });
  return c!.id;
}

/** Creates a user (password PASSWORD) with the given roles in the given clients. */
export async function makeUser(
  app: FastifyInstance,
  roles: Record<string, BuiltInRole> = {},
  opts: { email?: string; firstName?: string; lastName?: string } = {},
): Promise<{ id: string; email: string }> {
  const email = opts.email ?? `user-${randomUUID().slice(0, 8)}@example.com`;
  const [u] = await app.db
    .insert(users)
    .values({
      email,
      firstName: opts.firstName ?? 'Test',
      lastName: opts.lastName ?? 'User',
      passwordHash: await testPasswordHash(),
    })
    .returning({ id: users.id });
  let first = true;
  for (const [clientId, role] of Object.entries(roles)) {
    await app.db
      .insert(memberships)
      .values({ userId: u!.id, clientId, role, permissions: [...BUILT_IN_ROLES[role]], isDefault: first });
    first = false;
  }
  return { id: u!.id, email };
}

/** A signed-in browser for a new user with these roles; `clientId` set to the first client. */
export async function signedIn(
  app: FastifyInstance,
  roles: Record<string, BuiltInRole>,
  opts: { email?: string } = {},
) {
  const user = await makeUser(app, roles, opts);
  const browser = await new Browser(app).signIn(user.email, PASSWORD);
  browser.clientId = Object.keys(roles)[0];
  return { user, browser };
}
