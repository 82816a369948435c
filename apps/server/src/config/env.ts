import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The only reader of process.env (STYLE.md). Every variable is documented in the README table. */

export const SERVICE_NAMES = ['main', 'sc', 'biller'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');

/** PGlite's shared buffers in MiB, against PostgreSQL's 128 (db/client.ts says why). */
export const PGLITE_SHARED_BUFFERS_MB_DEFAULT = 16;

const url = (what: string) =>
  z.string().refine((v) => URL.canParse(v), { message: `must be a URL (${what})` });

const schema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().min(1).default('0.0.0.0'),
  PORT: z.coerce
    .number({ message: 'must be a whole number from 0 to 65535' })
    .int('must be a whole number from 0 to 65535')
    .min(0, 'must be a whole number from 0 to 65535')
    .max(65535, 'must be a whole number from 0 to 65535')
    .default(3000),
  PUBLIC_URL: url('e.g. https://app.example.com').optional(),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .refine((v) => /^postgres(ql)?:\/\//.test(v) && URL.canParse(v), {
      message: 'must be a postgres:// or postgresql:// URL',
    })
    .optional(),
  // Connections each instance keeps to PostgreSQL (queries and the job queue share them): the
  // instances times this must stay under the server's max_connections (100 by default).
  DATABASE_POOL_SIZE: z.coerce
    .number({ message: 'must be a whole number of connections' })
    .int('must be a whole number of connections')
    .min(2, 'must be at least 2')
    .max(200, 'must be at most 200')
    .default(10),
  PGLITE_SHARED_BUFFERS_MB: z.coerce
    .number({ message: 'must be a whole number of megabytes' })
    .int('must be a whole number of megabytes')
    .min(8, 'must be at least 8')
    .max(1024, 'must be at most 1024')
    .default(PGLITE_SHARED_BUFFERS_MB_DEFAULT),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters (e.g. `openssl rand -hex 32`)').optional(),
  SMTP_URL: z
    .string()
    .refine((v) => /^smtps?:\/\//.test(v) && URL.canParse(v), {
      message: 'must be an smtp:// or smtps:// URL',
    })
    .optional(),
  MAIL_FROM: z.string().min(3).default('Rally <no-reply@rally.localhost>'),
  REDIS_URL: z
    .string()
    .refine((v) => /^rediss?:\/\//.test(v) && URL.canParse(v), {
      message: 'must be a redis:// or rediss:// URL',
    })
    .optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w.:-]{1,64}$/, 'must be 1 to 64 letters, digits and . _ : -')
    .default('rally:'),
  SERVICES: z
    .string()
    .default('main,sc,biller')
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.enum(SERVICE_NAMES, { message: `each must be one of ${SERVICE_NAMES.join(', ')}` }))
        .min(1, 'must name at least one service'),
    ),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST: z.string().min(1).default(path.join(repoRoot, 'apps/web/dist')),
  SESSION_TTL_DAYS: z.coerce
    .number({ message: 'must be a number of days' })
    .int()
    .min(1)
    .max(365)
    .default(14),
  LOGIN_MAX_ATTEMPTS: z.coerce
    .number({ message: 'must be a whole number' })
    .int()
    .min(1)
    .max(1000)
    .default(5),
  LOGIN_WINDOW_SECONDS: z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int()
    .min(1)
    .max(86_400)
    .default(900),
  MFA_MAX_FAILURES: z.coerce.number({ message: 'must be a whole number' }).int().min(1).max(1000).default(10),
  MFA_LOCK_SECONDS: z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int()
    .min(1)
    .max(86_400)
    .default(900),
  // A click with another fetch of its ad tag this close is a scanner's (decision 0017); 0 turns it off.
  TRACKING_BURST_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int()
    .min(0)
    .max(60_000)
    .default(2_000),
  // A click to our landing page with no view of the page from a browser within this is a scanner's
  // fetch of the link (decision 0017); 0 turns it off.
  TRACKING_LANDING_VIEW_MS: z.coerce
    .number({ message: 'must be a whole number of milliseconds' })
    .int()
    .min(0)
    .max(120_000)
    .default(15_000),
  // The holdout share new cadences and cohorts start with (issue 45, docs/reports.md "Lift"); owners
  // change each one's share. Existing ones kept 0 when holdouts arrived (migration 0053).
  HOLDOUT_DEFAULT_PERCENT: z.coerce
    .number({ message: 'must be a whole number of percent' })
    .int('must be a whole number of percent')
    .min(0, 'must be at least 0')
    .max(50, 'must be at most 50')
    .default(10),
  // No default here: it depends on NODE_ENV (on outside production, off in it; see loadConfig).
  // Checked in loadConfig (parseTrustProxy): a hop count or a list of addresses and ranges.
  TRUST_PROXY: z.string().trim().optional(),
  SEED_DEMO: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .transform((v) => v === 'true' || v === '1')
    .optional(),
  // Decision 0037: the loopback port of the demo's in-process Meta (0: any free port).
  DEMO_META_PORT: z.coerce
    .number({ message: 'must be a port number' })
    .int('must be a whole number')
    .min(0, 'must be 0 to 65535')
    .max(65535, 'must be 0 to 65535')
    .default(0),
  ALLOW_PRIVATE_FETCH: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default('false')
    .transform((v) => v === 'true' || v === '1'),
  GOOGLE_CLIENT_ID: z.string().trim().min(1).optional(),
  GOOGLE_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_ISSUER: url('an OpenID Connect issuer').default('https://accounts.google.com'),
  MICROSOFT_CLIENT_ID: z.string().trim().min(1).optional(),
  MICROSOFT_CLIENT_SECRET: z.string().min(1).optional(),
  MICROSOFT_ISSUER: url('an OpenID Connect issuer').default('https://login.microsoftonline.com/common/v2.0'),
  POSTHOG_KEY: z.string().trim().min(1).optional(),
  POSTHOG_HOST: url('e.g. https://eu.i.posthog.com').default('https://us.i.posthog.com'),
  GTM_ID: z
    .string()
    .regex(/^GTM-[A-Z0-9]+$/, 'must be GTM- followed by uppercase letters and digits')
    .optional(),
  STRIPE_PUBLISHABLE_KEY: z.string().startsWith('pk_', 'must start with pk_').optional(),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_/, 'must start with sk_ (or rk_ for a restricted key)')
    .optional(),
  STRIPE_API_URL: url('the Stripe API origin').optional(),
  STRIPE_WEBHOOK_SECRET: z.string().startsWith('whsec_', 'must start with whsec_').optional(),
  SALESLOFT_CLIENT_ID: z.string().trim().min(1).optional(),
  SALESLOFT_CLIENT_SECRET: z.string().min(1).optional(),
  SALESLOFT_API_URL: url('the Salesloft API base').default('https://api.salesloft.com/v2'),
  SALESLOFT_AUTH_URL: url('the Salesloft accounts server').default('https://accounts.salesloft.com'),
  OUTREACH_CLIENT_ID: z.string().trim().min(1).optional(),
  OUTREACH_CLIENT_SECRET: z.string().min(1).optional(),
  OUTREACH_API_URL: url('the Outreach API base').default('https://api.outreach.io/api/v2'),
  OUTREACH_AUTH_URL: url('the Outreach OAuth server').default('https://api.outreach.io'),
  APOLLO_API_URL: url('the Apollo API base').default('https://api.apollo.io/api/v1'),
  SALESFORCE_CLIENT_ID: z.string().trim().min(1).optional(),
  SALESFORCE_CLIENT_SECRET: z.string().min(1).optional(),
  SALESFORCE_AUTH_URL: url('the Salesforce login server').default('https://login.salesforce.com'),
  SALESFORCE_SANDBOX_AUTH_URL: url('the Salesforce sandbox login server').default(
    'https://test.salesforce.com',
  ),
  SALESFORCE_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d$/, 'must be a REST API version like v66.0')
    .default('v66.0'),
  HUBSPOT_CLIENT_ID: z.string().trim().min(1).optional(),
  HUBSPOT_CLIENT_SECRET: z.string().min(1).optional(),
  HUBSPOT_API_URL: url('the HubSpot API base').default('https://api.hubapi.com'),
  HUBSPOT_AUTH_URL: url('the HubSpot consent server').default('https://app.hubspot.com'),
  META_APP_ID: z.string().trim().min(1).optional(),
  META_APP_SECRET: z.string().min(1).optional(),
  META_GRAPH_URL: url('the Meta Graph API base').default('https://graph.facebook.com'),
  META_AUTH_URL: url('the Facebook login dialog host').default('https://www.facebook.com'),
  META_API_VERSION: z
    .string()
    .regex(/^v\d+\.\d$/, 'must be a Graph API version like v25.0')
    .default('v25.0'),
  LINKEDIN_CLIENT_ID: z.string().trim().min(1).optional(),
  LINKEDIN_CLIENT_SECRET: z.string().min(1).optional(),
  LINKEDIN_API_URL: url('the LinkedIn REST API base').default('https://api.linkedin.com'),
  LINKEDIN_AUTH_URL: url('the LinkedIn OAuth host').default('https://www.linkedin.com'),
  LINKEDIN_API_VERSION: z
    .string()
    .regex(/^20\d{2}(0[1-9]|1[0-2])$/, 'must be a Marketing API version like 202606 (YYYYMM)')
    .default('202606'),
  LINKEDIN_SOURCE_PLATFORM: z
    .string()
    .trim()
    .regex(/^[A-Z][A-Z0-9_]{1,60}$/, 'must be the DMP sourcePlatform value LinkedIn assigned (upper case)')
    .default('RALLY'),
  GOOGLE_ADS_CLIENT_ID: z.string().trim().min(1).optional(),
  GOOGLE_ADS_CLIENT_SECRET: z.string().min(1).optional(),
  GOOGLE_ADS_DEVELOPER_TOKEN: z.string().trim().min(1).optional(),
  GOOGLE_ADS_API_URL: url('the Google Ads API base').default('https://googleads.googleapis.com'),
  GOOGLE_ADS_API_VERSION: z
    .string()
    .regex(/^v\d+$/, 'must be a Google Ads API version like v26')
    .default('v26'),
  GOOGLE_DATA_MANAGER_URL: url('the Data Manager API base').default('https://datamanager.googleapis.com'),
  GOOGLE_OAUTH_AUTH_URL: url('the Google consent screen host').default('https://accounts.google.com'),
  GOOGLE_OAUTH_TOKEN_URL: url('the Google token host').default('https://oauth2.googleapis.com'),
  UPLOAD_MAX_MB: z.coerce
    .number({ message: 'must be a number of megabytes' })
    .int('must be a whole number of megabytes')
    .min(1, 'must be at least 1')
    .max(2048, 'must be at most 2048')
    .default(100),
  IMPORT_CHILD_PROCESS: z
    .enum(['true', 'false', '1', '0'], { message: 'must be true or false' })
    .default('true')
    .transform((v) => v === 'true' || v === '1'),
  JOB_HEARTBEAT_SECONDS: z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(10, 'must be at least 10')
    .max(3600, 'must be at most 3600')
    .default(30),
  COHORT_SYNC_CHUNK: z.coerce
    .number({ message: 'must be a whole number of members' })
    .int('must be a whole number of members')
    .min(10, 'must be at least 10')
    .max(5000, 'must be at most 5000')
    .default(500),
  JOURNEY_EVALUATE_SECONDS: z.coerce
    .number({ message: 'must be a whole number of seconds' })
    .int('must be a whole number of seconds')
    .min(1, 'must be at least 1')
    .max(3600, 'must be at most 3600')
    .default(60),
  JOURNEY_CHUNK: z.coerce
    .number({ message: 'must be a whole number of accounts' })
    .int('must be a whole number of accounts')
    .min(100, 'must be at least 100')
    .max(200_000, 'must be at most 200000')
    .default(20_000),
  S3_BUCKET: z.string().trim().min(3).max(63).optional(),
  S3_REGION: z.string().trim().min(1).default('us-east-1'),
  S3_ENDPOINT: url('an S3-compatible endpoint, e.g. https://s3.eu-west-1.amazonaws.com').optional(),
  S3_ACCESS_KEY_ID: z.string().trim().min(1).optional(),
  S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  DOMAIN_RECHECK_HOURS: z.coerce
    .number({ message: 'must be a whole number of hours' })
    .int('must be a whole number of hours')
    .min(1, 'must be at least 1')
    .max(168, 'must be at most 168')
    .default(6),
  LANDING_DOMAIN_HOLD_DAYS: z.coerce
    .number({ message: 'must be a whole number of days' })
    .int('must be a whole number of days')
    .min(0, 'must be at least 0')
    .max(365, 'must be at most 365')
    .default(30),
  DNS_SERVERS: z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    )
    .pipe(
      z.array(
        z
          .string()
          .regex(/^(?:\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?|\[[0-9a-fA-F:]+\](?::\d{1,5})?|[0-9a-fA-F:]+)$/, {
            message: 'each must be an IP address, optionally with :port',
          }),
      ),
    )
    .optional(),
});

/** S3-compatible storage for uploads (images, CSV imports); without S3_BUCKET, the database. */
export type S3Config = {
  bucket: string;
  region: string;
  /** For S3-compatible services (MinIO, R2…); path-style addressing is used with it. */
  endpoint: string | null;
  accessKeyId: string | null;
  secretAccessKey: string | null;
};

/** An OAuth app registered with a sequence platform; null ids while the operator has not set them. */
export type OAuthVendorConfig = {
  apiUrl: string;
  authUrl: string;
  clientId: string | null;
  clientSecret: string | null;
};

/**
 * Salesforce's OAuth app: the default login server (production, login.salesforce.com), the sandbox
 * one (test.salesforce.com) and the REST version; the owner picks production, sandbox or the org's
 * My Domain when connecting. The API host is the org's instance_url from the token reply.
 */
export type SalesforceConfig = {
  authUrl: string;
  sandboxAuthUrl: string;
  apiVersion: string;
  clientId: string | null;
  clientSecret: string | null;
};

/** Meta's Marketing API (issue 39): the app's id and secret, the Graph host and its version. */
export type MetaConfig = {
  graphUrl: string;
  authUrl: string;
  apiVersion: string;
  appId: string | null;
  appSecret: string | null;
};

/** LinkedIn's Marketing API (issue 39): the app's OAuth client, the REST host and `LinkedIn-Version`. */
export type LinkedInConfig = OAuthVendorConfig & { apiVersion: string; sourcePlatform: string };

/**
 * Google Ads (issue 39): an OAuth client of its own (the sign-in client asks for no ads scopes), the
 * Google Ads API's developer token, and the hosts of the Google Ads API, the Data Manager API
 * (Customer Match uploads since April 2026) and Google's OAuth endpoints.
 */
export type GoogleAdsConfig = {
  apiUrl: string;
  apiVersion: string;
  dataManagerUrl: string;
  authUrl: string;
  tokenUrl: string;
  appId: string | null;
  appSecret: string | null;
  developerToken: string | null;
};

export type VendorsConfig = {
  meta: MetaConfig;
  linkedin: LinkedInConfig;
  google: GoogleAdsConfig;
  salesloft: OAuthVendorConfig;
  outreach: OAuthVendorConfig;
  apolloio: { apiUrl: string };
  salesforce: SalesforceConfig;
  hubspot: OAuthVendorConfig;
};

/** An OpenID Connect provider the app signs users in with (OAuth client registered there). */
export type OidcProviderConfig = { issuer: string; clientId: string; clientSecret: string };

export type Config = {
  nodeEnv: 'development' | 'production' | 'test';
  host: string;
  port: number;
  publicUrl: string;
  /** Folder for the embedded database and local files; `memory://` keeps everything in memory. */
  dataDir: string;
  databaseUrl: string | undefined;
  databasePoolSize: number;
  /** Shared buffers of the embedded database (PGlite), in MiB; unused with DATABASE_URL. */
  pgliteSharedBuffersMb: number;
  appSecret: string;
  smtpUrl: string | undefined;
  mailFrom: string;
  redisUrl: string | undefined;
  /**
   * Starts every Redis key and pub/sub channel (channels add the database number when not 0), so
   * deployments can share a Redis.
   */
  redisPrefix: string;
  services: ServiceName[];
  logLevel: string;
  webDist: string;
  seedDemo: boolean;
  /** Loopback port of the demo's in-process Meta when SEED_DEMO runs without a Meta app (0: any). */
  demoMetaPort: number;
  /** Fetches of one ad tag this close around a click make it a scanner's (decision 0017); 0: off. */
  trackingBurstMs: number;
  trackingLandingViewMs: number;
  /** Share (%) of targets held out in new cadences and cohorts (issue 45). */
  holdoutDefaultPercent: number;
  /** Idle time after which a session ends (sliding). */
  sessionTtlDays: number;
  /** Sign-in attempts allowed per account in a window (per IP: ten times as many). */
  loginMaxAttempts: number;
  loginWindowSeconds: number;
  /**
   * Wrong second-factor codes (TOTP or recovery) per account across sign-ins before it is locked for
   * `mfaLockSeconds` (also the counting window); per IP: three times as many.
   */
  mfaMaxFailures: number;
  mfaLockSeconds: number;
  /**
   * Which peers' X-Forwarded-For (and -Host, -Proto) are believed (TRUST_PROXY): false, none (the
   * socket's address is the client's); a number, that many proxies in front; or addresses, CIDR
   * ranges and proxy-addr's names (loopback, linklocal, uniquelocal) of the proxies.
   */
  trustProxy: false | number | string[];
  /** Cookies are Secure unless the app is served from localhost over plain http. */
  secureCookies: boolean;
  /** "Sign in with Google"; null (sign-in answers 404) while GOOGLE_CLIENT_ID is unset. */
  google: OidcProviderConfig | null;
  /** "Sign in with Microsoft"; null while MICROSOFT_CLIENT_ID is unset. */
  microsoft: OidcProviderConfig | null;
  /** Product analytics (PostHog), proxied under /ingest/ph; null while POSTHOG_KEY is unset. */
  posthog: { key: string; host: string } | null;
  /** Tag-manager container id; the browser loads no tag manager while it is null. */
  gtmId: string | null;
  /** Card-billing provider (Stripe.js) key; the browser loads no Stripe.js while it is null. */
  stripePublishableKey: string | null;
  /** Server side of the stripe payment provider; null means the built-in local provider bills. */
  stripe: { secretKey: string; apiUrl: string | null; webhookSecret: string | null } | null;
  /** Sequence platforms' API and OAuth endpoints (tests point them at in-repo fakes). */
  vendors: VendorsConfig;
  /** Largest CSV upload accepted, in bytes. */
  uploadMaxBytes: number;
  /**
   * Seconds a long job (the file import) may go without its heartbeat before it counts as abandoned
   * (its process died) and is retried; the queue looks for such jobs every third of it.
   */
  jobHeartbeatSeconds: number;
  /**
   * On PostgreSQL, each file import runs in a child process of the worker that takes its job, so its
   * memory and CPU stay off the API process (issue 19). PGlite keeps imports in process.
   */
  importChildProcess: boolean;
  /** Members a cohort sync writes per transaction (a crash redoes at most one such chunk). */
  cohortSyncChunk: number;
  /** Every journey's rules are evaluated this often where job workers run (seconds). */
  journeyEvaluateSeconds: number;
  /** Accounts a journey evaluation handles per transaction. */
  journeyChunk: number;
  /** Uploads go to S3-compatible storage when set, else to the database (lib/blob-store.ts). */
  s3: S3Config | null;
  /** Resolvers for the domain checks (TXT tokens, landing domains); empty means the system's. */
  dnsServers: string[];
  /** Each verified domain's TXT record is looked at again this often (hours). */
  domainRecheckHours: number;
  /** A verified landing domain a client lets go of stays reserved to it this many days (issue 37.6). */
  landingDomainHoldDays: number;
  /**
   * Server-side fetches of user-given URLs (ad pictures, SSO issuers, Marketo, webhooks) may reach
   * loopback and private addresses: local development and test fakes only (ALLOW_PRIVATE_FETCH).
   */
  allowPrivateFetch: boolean;
};

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/**
 * Parses and validates the environment. Throws ConfigError listing every bad or missing variable,
 * each by name, so a deploy fails at start-up with a message that says what to fix.
 */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  // Empty strings count as unset, as in most .env tooling.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ConfigError(
      parsed.error.issues.map((i) => {
        const name = String(i.path[0] ?? '');
        const got = cleaned[name];
        return `${name}: ${i.message}${got === undefined ? '' : ` (got ${JSON.stringify(got)})`}`;
      }),
    );
  }
  const e = parsed.data;
  const problems: string[] = [];
  if (e.NODE_ENV === 'production' && !e.APP_SECRET) {
    problems.push('APP_SECRET: is required when NODE_ENV=production (at least 32 characters)');
  }
  // The demo accounts have a published password (README); in production they would be a way in.
  if (e.NODE_ENV === 'production' && e.SEED_DEMO) {
    problems.push(
      'SEED_DEMO: must not be true when NODE_ENV=production (the demo accounts have a published password); unset it or set it to false',
    );
  }
  const trustProxy = parseTrustProxy(e.TRUST_PROXY);
  if (typeof trustProxy === 'object' && 'problem' in trustProxy)
    problems.push(`TRUST_PROXY: ${trustProxy.problem} (got ${JSON.stringify(e.TRUST_PROXY)})`);
  if (Boolean(e.S3_ACCESS_KEY_ID) !== Boolean(e.S3_SECRET_ACCESS_KEY)) {
    problems.push(
      'S3_SECRET_ACCESS_KEY: S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together: set both or neither',
    );
  }
  for (const p of [
    'GOOGLE',
    'MICROSOFT',
    'SALESLOFT',
    'OUTREACH',
    'SALESFORCE',
    'HUBSPOT',
    'LINKEDIN',
  ] as const) {
    if (e[`${p}_CLIENT_ID`] && !e[`${p}_CLIENT_SECRET`]) {
      problems.push(`${p}_CLIENT_SECRET: is required when ${p}_CLIENT_ID is set`);
    }
  }
  if (e.META_APP_ID && !e.META_APP_SECRET) {
    problems.push('META_APP_SECRET: is required when META_APP_ID is set');
  }
  if (e.GOOGLE_ADS_CLIENT_ID && (!e.GOOGLE_ADS_CLIENT_SECRET || !e.GOOGLE_ADS_DEVELOPER_TOKEN)) {
    problems.push(
      'GOOGLE_ADS_CLIENT_SECRET, GOOGLE_ADS_DEVELOPER_TOKEN: are required when GOOGLE_ADS_CLIENT_ID is set',
    );
  }
  if (e.STRIPE_SECRET_KEY && !e.STRIPE_PUBLISHABLE_KEY) {
    problems.push(
      'STRIPE_PUBLISHABLE_KEY: is required when STRIPE_SECRET_KEY is set (the browser collects cards with Stripe.js)',
    );
  }
  if (problems.length) throw new ConfigError(problems);
  const oidcProvider = (
    issuer: string,
    clientId?: string,
    clientSecret?: string,
  ): OidcProviderConfig | null => (clientId && clientSecret ? { issuer, clientId, clientSecret } : null);

  const dataDir = e.DATA_DIR === 'memory://' ? e.DATA_DIR : path.resolve(e.DATA_DIR);
  return {
    nodeEnv: e.NODE_ENV,
    host: e.HOST,
    port: e.PORT,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    dataDir,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    pgliteSharedBuffersMb: e.PGLITE_SHARED_BUFFERS_MB,
    appSecret: e.APP_SECRET ?? localSecret(dataDir),
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    services: [...new Set(e.SERVICES)],
    logLevel: e.LOG_LEVEL,
    webDist: path.resolve(e.WEB_DIST),
    seedDemo: e.SEED_DEMO ?? e.NODE_ENV !== 'production',
    demoMetaPort: e.DEMO_META_PORT,
    trustProxy: trustProxy as Config['trustProxy'],
    trackingBurstMs: e.TRACKING_BURST_MS,
    trackingLandingViewMs: e.TRACKING_LANDING_VIEW_MS,
    holdoutDefaultPercent: e.HOLDOUT_DEFAULT_PERCENT,
    sessionTtlDays: e.SESSION_TTL_DAYS,
    loginMaxAttempts: e.LOGIN_MAX_ATTEMPTS,
    loginWindowSeconds: e.LOGIN_WINDOW_SECONDS,
    mfaMaxFailures: e.MFA_MAX_FAILURES,
    mfaLockSeconds: e.MFA_LOCK_SECONDS,
    secureCookies: isSecureOrigin(e.PUBLIC_URL ?? `http://localhost:${e.PORT}`),
    google: oidcProvider(e.GOOGLE_ISSUER, e.GOOGLE_CLIENT_ID, e.GOOGLE_CLIENT_SECRET),
    microsoft: oidcProvider(e.MICROSOFT_ISSUER, e.MICROSOFT_CLIENT_ID, e.MICROSOFT_CLIENT_SECRET),
    posthog: e.POSTHOG_KEY ? { key: e.POSTHOG_KEY, host: e.POSTHOG_HOST.replace(/\/+$/, '') } : null,
    gtmId: e.GTM_ID ?? null,
    stripePublishableKey: e.STRIPE_PUBLISHABLE_KEY ?? null,
    stripe: e.STRIPE_SECRET_KEY
      ? {
          secretKey: e.STRIPE_SECRET_KEY,
          apiUrl: e.STRIPE_API_URL?.replace(/\/+$/, '') ?? null,
          webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? null,
        }
      : null,
    vendors: {
      meta: {
        graphUrl: e.META_GRAPH_URL.replace(/\/+$/, ''),
        authUrl: e.META_AUTH_URL.replace(/\/+$/, ''),
        apiVersion: e.META_API_VERSION,
        appId: e.META_APP_ID ?? null,
        appSecret: e.META_APP_SECRET ?? null,
      },
      linkedin: {
        apiUrl: e.LINKEDIN_API_URL.replace(/\/+$/, ''),
        authUrl: e.LINKEDIN_AUTH_URL.replace(/\/+$/, ''),
        apiVersion: e.LINKEDIN_API_VERSION,
        sourcePlatform: e.LINKEDIN_SOURCE_PLATFORM,
        clientId: e.LINKEDIN_CLIENT_ID ?? null,
        clientSecret: e.LINKEDIN_CLIENT_SECRET ?? null,
      },
      google: {
        apiUrl: e.GOOGLE_ADS_API_URL.replace(/\/+$/, ''),
        apiVersion: e.GOOGLE_ADS_API_VERSION,
        dataManagerUrl: e.GOOGLE_DATA_MANAGER_URL.replace(/\/+$/, ''),
        authUrl: e.GOOGLE_OAUTH_AUTH_URL.replace(/\/+$/, ''),
        tokenUrl: e.GOOGLE_OAUTH_TOKEN_URL.replace(/\/+$/, ''),
        appId: e.GOOGLE_ADS_CLIENT_ID ?? null,
        appSecret: e.GOOGLE_ADS_CLIENT_SECRET ?? null,
        developerToken: e.GOOGLE_ADS_DEVELOPER_TOKEN ?? null,
      },
      salesloft: {
        apiUrl: e.SALESLOFT_API_URL.replace(/\/+$/, ''),
        authUrl: e.SALESLOFT_AUTH_URL.replace(/\/+$/, ''),
        clientId: e.SALESLOFT_CLIENT_ID ?? null,
        clientSecret: e.SALESLOFT_CLIENT_SECRET ?? null,
      },
      outreach: {
        apiUrl: e.OUTREACH_API_URL.replace(/\/+$/, ''),
        authUrl: e.OUTREACH_AUTH_URL.replace(/\/+$/, ''),
        clientId: e.OUTREACH_CLIENT_ID ?? null,
        clientSecret: e.OUTREACH_CLIENT_SECRET ?? null,
      },
      apolloio: { apiUrl: e.APOLLO_API_URL.replace(/\/+$/, '') },
      salesforce: {
        authUrl: e.SALESFORCE_AUTH_URL.replace(/\/+$/, ''),
        sandboxAuthUrl: e.SALESFORCE_SANDBOX_AUTH_URL.replace(/\/+$/, ''),
        apiVersion: e.SALESFORCE_API_VERSION,
        clientId: e.SALESFORCE_CLIENT_ID ?? null,
        clientSecret: e.SALESFORCE_CLIENT_SECRET ?? null,
      },
      hubspot: {
        apiUrl: e.HUBSPOT_API_URL.replace(/\/+$/, ''),
        authUrl: e.HUBSPOT_AUTH_URL.replace(/\/+$/, ''),
        clientId: e.HUBSPOT_CLIENT_ID ?? null,
        clientSecret: e.HUBSPOT_CLIENT_SECRET ?? null,
      },
    },
    uploadMaxBytes: e.UPLOAD_MAX_MB * 1024 * 1024,
    jobHeartbeatSeconds: e.JOB_HEARTBEAT_SECONDS,
    importChildProcess: e.IMPORT_CHILD_PROCESS,
    cohortSyncChunk: e.COHORT_SYNC_CHUNK,
    journeyEvaluateSeconds: e.JOURNEY_EVALUATE_SECONDS,
    journeyChunk: e.JOURNEY_CHUNK,
    s3: e.S3_BUCKET
      ? {
          bucket: e.S3_BUCKET,
          region: e.S3_REGION,
          endpoint: e.S3_ENDPOINT?.replace(/\/+$/, '') ?? null,
          accessKeyId: e.S3_ACCESS_KEY_ID ?? null,
          secretAccessKey: e.S3_SECRET_ACCESS_KEY ?? null,
        }
      : null,
    dnsServers: e.DNS_SERVERS ?? [],
    domainRecheckHours: e.DOMAIN_RECHECK_HOURS,
    landingDomainHoldDays: e.LANDING_DOMAIN_HOLD_DAYS,
    allowPrivateFetch: e.ALLOW_PRIVATE_FETCH,
  };
}

const PROXY_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/**
 * TRUST_PROXY: unset, `false` or `0` trusts no proxy; a whole number is a hop count; otherwise a
 * comma-separated list of proxies' addresses, CIDR ranges or proxy-addr's names. `true` (trust every
 * peer) is refused: it lets any client write the address the per-IP limits count (issue 37 item 4).
 */
function parseTrustProxy(v: string | undefined): false | number | string[] | { problem: string } {
  if (v === undefined || v === 'false' || v === '0') return false;
  if (/^\d+$/.test(v)) {
    const hops = Number(v);
    return hops <= 20 ? hops : { problem: 'a hop count must be at most 20' };
  }
  if (v === 'true')
    return {
      problem:
        'must name the proxies (addresses or CIDR ranges, e.g. 10.0.0.0/8) or give their number; trusting every peer lets clients choose their own address',
    };
  const entries = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const bad = entries.filter((entry) => {
    if (PROXY_NAMES.has(entry)) return false;
    const [addr = '', prefix, ...rest] = entry.split('/');
    const family = isIP(addr);
    if (!family || rest.length) return true;
    if (prefix === undefined) return false;
    return !/^\d+$/.test(prefix) || Number(prefix) > (family === 4 ? 32 : 128);
  });
  if (!entries.length || bad.length)
    return {
      problem: `must be a hop count or a comma-separated list of IP addresses, CIDR ranges, loopback, linklocal or uniquelocal${bad.length ? `; not understood: ${bad.join(', ')}` : ''}`,
    };
  return entries;
}

/**
 * Outside production a missing APP_SECRET is generated once and kept in the data folder, so that
 * `npm start` needs no configuration and encrypted values survive restarts.
 */
function localSecret(dataDir: string): string {
  if (dataDir === 'memory://') return randomBytes(32).toString('hex');
  const file = path.join(dataDir, 'app-secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('hex');
  writeFileSync(file, secret, { mode: 0o600 });
  return secret;
}

function isSecureOrigin(publicUrl: string): boolean {
  const u = new URL(publicUrl);
  const local = ['localhost', '127.0.0.1', '[::1]'].includes(u.hostname);
  return u.protocol === 'https:' || !local;
}
