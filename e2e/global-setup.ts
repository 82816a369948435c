import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { startOidcProvider } from '../apps/server/test/oidc-provider.ts';
import { demoSalesloftData, startFakeSalesloft } from '../apps/server/test/fakes/salesloft.ts';
import { smallPortal, startFakeHubSpot } from '../apps/server/test/fakes/hubspot.ts';
import { startFakeDns } from '../apps/server/test/fakes/dns.ts';
import { freePort } from '../apps/server/test/free-port.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export type Mail = { to: string[]; subject: string; raw: string };

/** A real SMTP server on loopback, and an HTTP endpoint where tests read what it received. */
async function startMailbox() {
  const mails: Mail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, done) {
      let raw = '';
      stream.on('data', (c: Buffer) => (raw += c.toString('utf8')));
      stream.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          subject: raw.match(/^Subject: (.*)$/m)?.[1] ?? '',
          raw,
        });
        done();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', r));
  const http = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(mails));
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  const port = (s: { address(): unknown }) => (s.address() as { port: number }).port;
  return {
    smtpUrl: `smtp://127.0.0.1:${port(smtp.server)}`,
    url: `http://127.0.0.1:${port(http)}`,
    close: async () => {
      await new Promise<void>((r) => smtp.close(() => r()));
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/**
 * The DNS the server's domain checks ask (a loopback fake: unknown names are NXDOMAIN), and an HTTP
 * endpoint where a test sets a name's TXT records: `PUT /txt {name, values}` (values [] leaves the name without TXT records).
 */
async function startDns() {
  const dns = await startFakeDns({});
  const http = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      if (req.method !== 'PUT' || req.url !== '/txt') {
        res.statusCode = 404;
        res.end();
        return;
      }
      try {
        const { name, values } = JSON.parse(body) as { name: string; values: string[] };
        const key = name.toLowerCase().replace(/\.$/, '');
        dns.records[key] = { ...dns.records[key], txt: values };
        res.statusCode = 204;
      } catch {
        res.statusCode = 400;
      }
      res.end();
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  return {
    server: dns.server,
    url: `http://127.0.0.1:${(http.address() as { port: number }).port}`,
    close: async () => {
      await dns.close();
      await new Promise<void>((r) => http.close(() => r()));
    },
  };
}

/**
 * Starts the outside services on loopback (SMTP, DNS, Google, Microsoft and a customer's SSO provider)
 * and then the real server wired to them, on a fresh database (E2E_DATABASE_URL's, else embedded) with
 * the demo seed.
 */
export default async function globalSetup() {
  const port = Number(process.env.E2E_PORT ?? 4317);
  const publicUrl = `http://localhost:${port}`;
  const mailbox = await startMailbox();
  const dns = await startDns();
  const client = (id: string, callback: string) => ({
    client_id: id,
    client_secret: `${id}-secret`,
    redirect_uris: [`${publicUrl}/v1/api/auth/${callback}/callback`],
  });
  const google = await startOidcProvider({
    clients: [client('rally-google', 'google')],
    accounts: { demo: { email: 'demo@rally.test', name: 'Dana Reyes' } },
    conformIdTokenClaims: false,
  });
  const microsoft = await startOidcProvider({
    clients: [client('rally-microsoft', 'microsoft')],
    // Entra's tenant and object ids, and xms_edov: the tenant verified the address's domain (decision 15).
    accounts: {
      sam: {
        email: 'sam@rally.test',
        name: 'Sam Okafor',
        claims: {
          tid: '9b1c0d2e-0000-4000-8000-00000000e2e0',
          oid: '5a4b3c2d-0000-4000-8000-0000000005a3',
          xms_edov: true,
        },
      },
    },
    conformIdTokenClaims: false,
  });
  const sso = await startOidcProvider({
    clients: [client('rally-sso', 'sso')],
    accounts: { demo: { email: 'demo@rally.test' } },
    conformIdTokenClaims: false,
  });

  // The sequence platform a new client connects to in the onboarding tests (a fake on loopback).
  const salesloft = await startFakeSalesloft({ seed: demoSalesloftData() });
  // The CRM an owner connects in the CRM settings test (issue 16). Its API answers 250 ms late so the
  // first sync lasts a few seconds and its progress bar can be seen.
  const hubspot = await startFakeHubSpot({ seed: smallPortal(), latencyMs: 250 });
  // The ad network (issue 39) is the demo's own Meta fake, served by the server's process as on
  // `npm start` (decision 0037): Northwind opens connected, and ad-networks.spec.ts connects Acme to
  // it by hand. Its port is chosen here so the walks can reach its control endpoints.
  const metaPort = await freePort();
  const metaUrl = `http://127.0.0.1:${metaPort}`;

  const dataDir = process.env.E2E_DATA_DIR ?? mkdtempSync(path.join(tmpdir(), 'rally-e2e-'));
  const server = spawn(process.execPath, [path.join(root, 'apps/server/src/main.ts')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_URL: publicUrl,
      DATA_DIR: dataDir,
      // npm test gives it a new PostgreSQL database where CI has one (scripts/test.ts e2eDatabase,
      // docs/decisions/0043); otherwise the embedded database, as `npm start` runs.
      DATABASE_URL: process.env.E2E_DATABASE_URL ?? '',
      // E2E_SERVER_LOG=<file> keeps every request with its time (to find what slows the suite).
      LOG_LEVEL: process.env.E2E_SERVER_LOG ? 'info' : 'warn',
      SEED_DEMO: 'true',
      // The walks name demo prospects and their counts; none may be held out by chance (issue 45).
      HOLDOUT_DEFAULT_PERCENT: '0',
      // Journey rules run every 5 s, so a member's stage move shows within a few of the journey view's
      // 5 s polls; not faster: on the embedded database each run holds it, and the whole suite shares it.
      JOURNEY_EVALUATE_SECONDS: '5',
      // Every test signs in from 127.0.0.1; the limits (tested by the API suite) must not throttle the
      // suite itself, nor a second run within the window when the counters live in a shared Redis.
      LOGIN_MAX_ATTEMPTS: '1000',
      SMTP_URL: mailbox.smtpUrl,
      // Domain checks (verified domains, the landing domain) ask the loopback fake, never the internet.
      DNS_SERVERS: dns.server,
      // The SSO issuer and pictures of the suite are loopback fakes.
      ALLOW_PRIVATE_FETCH: 'true',
      GOOGLE_CLIENT_ID: 'rally-google',
      GOOGLE_CLIENT_SECRET: 'rally-google-secret',
      GOOGLE_ISSUER: google.issuer,
      MICROSOFT_CLIENT_ID: 'rally-microsoft',
      MICROSOFT_CLIENT_SECRET: 'rally-microsoft-secret',
      MICROSOFT_ISSUER: microsoft.issuer,
      SALESLOFT_CLIENT_ID: salesloft.clientId,
      SALESLOFT_CLIENT_SECRET: salesloft.clientSecret,
      SALESLOFT_API_URL: salesloft.apiUrl,
      SALESLOFT_AUTH_URL: salesloft.authUrl,
      HUBSPOT_CLIENT_ID: hubspot.clientId,
      HUBSPOT_CLIENT_SECRET: hubspot.clientSecret,
      HUBSPOT_API_URL: hubspot.apiUrl,
      HUBSPOT_AUTH_URL: hubspot.authUrl,
      // No META_APP_ID: the demo's in-process Meta answers on this port.
      DEMO_META_PORT: String(metaPort),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      // A server that never became ready must not hold the port (and the data folder) afterwards.
      server.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output}`));
    }, 180_000);
    const onData = (c: Buffer) => {
      output += c.toString();
      if (/ready at http/.test(output)) {
        clearTimeout(timer);
        resolve();
      }
    };
    server.stdout.on('data', onData);
    server.stderr.on('data', (c: Buffer) => {
      output += c.toString();
      process.stderr.write(c);
    });
    server.once('exit', (code) => reject(new Error(`server exited with ${code}:\n${output}`)));
  });
  server.removeAllListeners('exit');
  if (process.env.E2E_SERVER_LOG) {
    const log = createWriteStream(process.env.E2E_SERVER_LOG);
    server.stdout.pipe(log);
  }

  // Workers read these (Playwright passes the runner's environment to them).
  process.env.E2E_MAILBOX_URL = mailbox.url;
  process.env.E2E_DNS_URL = dns.url;
  process.env.E2E_META_URL = metaUrl;
  process.env.E2E_SSO_ISSUER = sso.issuer;
  process.env.E2E_SSO_CLIENT_ID = 'rally-sso';
  process.env.E2E_SSO_CLIENT_SECRET = 'rally-sso-secret';

  return async () => {
    await new Promise<void>((resolve) => {
      // A server that cannot finish its graceful shutdown is killed rather than left running.
      const force = setTimeout(() => server.kill('SIGKILL'), 15_000);
      server.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      server.kill('SIGTERM');
    });
    await Promise.all([
      google.close(),
      microsoft.close(),
      sso.close(),
      mailbox.close(),
      dns.close(),
      salesloft.close(),
      hubspot.close(),
    ]);
    if (!process.env.E2E_DATA_DIR) rmSync(dataDir, { recursive: true, force: true });
  };
}
