import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
// @ts-expect-error -- oidc-provider ships no type declarations; the few parts used here are typed below.
import Provider from 'oidc-provider';

/**
 * A real OpenID Connect provider on loopback (the `oidc-provider` package), standing in for Google,
 * Microsoft and organisations' identity providers in API and end-to-end tests (STYLE.md: outside
 * services are stood in for on loopback). Its login page signs in the account chosen with
 * `setNextLogin` and grants consent at once, so a test can walk the redirects with plain HTTP.
 */

export type TestOidcClient = {
  client_id: string;
  client_secret: string;
  redirect_uris: string[];
  /** Default `client_secret_basic`, the OpenID Connect default. */
  token_endpoint_auth_method?: 'client_secret_basic' | 'client_secret_post';
};

export type TestOidcAccount = {
  email?: string;
  email_verified?: boolean;
  name?: string;
  /**
   * More claims, in the ID token and userinfo with the `openid` scope: Microsoft's `tid`, `oid` and
   * `xms_edov`, for instance. Changes to an account's object show at its next sign-in.
   */
  claims?: Record<string, unknown>;
};

export type StartOidcProviderOptions = {
  clients: TestOidcClient[];
  /** Account id → claims. Accounts default to a verified e-mail address. */
  accounts: Record<string, TestOidcAccount>;
  /**
   * true (the library default): the e-mail claims are only served by the userinfo endpoint when an
   * access token is issued. false: the ID token carries them too, as Google's and Microsoft's do.
   */
  conformIdTokenClaims?: boolean;
};

export type TestOidcProvider = {
  /** `http://127.0.0.1:<port>` */
  issuer: string;
  /** Who the next login interaction signs in; `null` makes the user cancel (access_denied). */
  setNextLogin(accountId: string | null): void;
  close(): Promise<void>;
};

// The part of oidc-provider's API used here.
type InteractionDetails = {
  prompt: {
    name: string;
    details: {
      missingOIDCScope?: string[];
      missingOIDCClaims?: string[];
      missingResourceScopes?: Record<string, string[]>;
    };
  };
  params: { client_id?: unknown };
  session?: { accountId?: string };
  grantId?: string;
};
type Grant = {
  addOIDCScope(scope: string): void;
  addOIDCClaims(claims: string[]): void;
  addResourceScope(indicator: string, scope: string): void;
  save(): Promise<string>;
};
type OidcProvider = {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
  interactionFinished(
    req: IncomingMessage,
    res: ServerResponse,
    result: Record<string, unknown>,
    opts?: { mergeWithLastSubmission?: boolean },
  ): Promise<void>;
  Grant: {
    new (init: { accountId: string; clientId: string }): Grant;
    find(id: string): Promise<Grant | undefined>;
  };
};
type OidcProviderConstructor = new (issuer: string, configuration: Record<string, unknown>) => OidcProvider;

const OidcProvider = Provider as OidcProviderConstructor;

type Stored = Record<string, unknown>;

/**
 * Storage of one provider's sessions, interactions, codes and grants, kept in a Map (the built-in
 * one is shared by every provider in the process and warns at each start). Expiry is checked by
 * the provider itself.
 */
function memoryAdapter() {
  const store = new Map<string, Stored>();
  const uids = new Map<string, string>();
  const userCodes = new Map<string, string>();
  return class MemoryAdapter {
    readonly model: string;
    constructor(model: string) {
      this.model = model;
    }
    async upsert(id: string, payload: Stored) {
      store.set(`${this.model}:${id}`, payload);
      if (typeof payload.uid === 'string') uids.set(payload.uid, id);
      if (typeof payload.userCode === 'string') userCodes.set(payload.userCode, id);
    }
    async find(id: string) {
      return store.get(`${this.model}:${id}`);
    }
    async findByUid(uid: string) {
      const id = uids.get(uid);
      return id === undefined ? undefined : this.find(id);
    }
    async findByUserCode(userCode: string) {
      const id = userCodes.get(userCode);
      return id === undefined ? undefined : this.find(id);
    }
    async consume(id: string) {
      const payload = store.get(`${this.model}:${id}`);
      if (payload) payload.consumed = Math.floor(Date.now() / 1000);
    }
    async destroy(id: string) {
      store.delete(`${this.model}:${id}`);
    }
    async revokeByGrantId(grantId: string) {
      for (const [key, payload] of store) if (payload.grantId === grantId) store.delete(key);
    }
  };
}

export async function startOidcProvider(opts: StartOidcProviderOptions): Promise<TestOidcProvider> {
  const accountIds = Object.keys(opts.accounts);
  let nextLogin: string | null = accountIds[0] ?? null;

  // The issuer names the port, so listen first and build the provider after.
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('OIDC provider has no port');
  const issuer = `http://127.0.0.1:${address.port}`;

  const interact = async (p: OidcProvider, req: IncomingMessage, res: ServerResponse) => {
    const details = await p.interactionDetails(req, res);
    if (details.prompt.name === 'login') {
      const result =
        nextLogin === null
          ? { error: 'access_denied', error_description: 'The user cancelled the sign-in.' }
          : { login: { accountId: nextLogin } };
      return p.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
    }
    // Consent: grant whatever is missing.
    const accountId = details.session?.accountId;
    if (!accountId) throw new Error('consent without a signed-in account');
    const grant = details.grantId
      ? await p.Grant.find(details.grantId)
      : new p.Grant({ accountId, clientId: String(details.params.client_id) });
    if (!grant) throw new Error('grant not found');
    const missing = details.prompt.details;
    if (missing.missingOIDCScope) grant.addOIDCScope(missing.missingOIDCScope.join(' '));
    if (missing.missingOIDCClaims) grant.addOIDCClaims(missing.missingOIDCClaims);
    for (const [indicator, scopes] of Object.entries(missing.missingResourceScopes ?? {})) {
      grant.addResourceScope(indicator, scopes.join(' '));
    }
    const grantId = await grant.save();
    return p.interactionFinished(req, res, { consent: { grantId } }, { mergeWithLastSubmission: true });
  };

  const extraClaims = [...new Set(Object.values(opts.accounts).flatMap((a) => Object.keys(a.claims ?? {})))];
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const provider = new OidcProvider(issuer, {
    clients: opts.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      redirect_uris: c.redirect_uris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: c.token_endpoint_auth_method ?? 'client_secret_basic',
    })),
    async findAccount(_ctx: unknown, id: string) {
      const account = opts.accounts[id];
      if (!account) return undefined;
      return {
        accountId: id,
        async claims() {
          return {
            ...account.claims,
            sub: id,
            email: account.email,
            email_verified: account.email_verified ?? true,
            name: account.name,
          };
        },
      };
    },
    claims: { openid: ['sub', ...extraClaims], email: ['email', 'email_verified'], profile: ['name'] },
    conformIdTokenClaims: opts.conformIdTokenClaims ?? true,
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    // Like the real providers, insist on PKCE from confidential clients too.
    pkce: { required: () => true },
    cookies: { keys: [randomBytes(32).toString('hex')] },
    adapter: memoryAdapter(),
    // Lifetimes (seconds) set explicitly, as the library asks of every deployment.
    ttl: {
      AccessToken: 600,
      AuthorizationCode: 60,
      Grant: 3600,
      IdToken: 600,
      Interaction: 600,
      Session: 3600,
    },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: 'test', use: 'sig', alg: 'RS256' }] },
  });
  const handle = provider.callback();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.url?.startsWith('/interaction/')) {
      interact(provider, req, res).catch((err: unknown) => {
        res.statusCode = 500;
        res.end(`interaction failed: ${String(err)}`);
      });
    } else handle(req, res);
  });

  return {
    issuer,
    setNextLogin(accountId) {
      if (accountId !== null && !(accountId in opts.accounts))
        throw new Error(`unknown account ${accountId}`);
      nextLogin = accountId;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
