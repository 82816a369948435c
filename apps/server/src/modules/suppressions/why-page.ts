import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { eq } from 'drizzle-orm';
import { escapeHtml } from '@rally/shared';
import { clients, prospects, salesReps, targets } from '../../db/schema/index.ts';
import { createWhySigner } from './why-token.ts';

/**
 * The public "Why am I seeing this?" page (issue 44, decision 0027), server-rendered with no script
 * like the landing pages (decision 0006). It says which company showed the ad and why, and offers
 * "Stop showing me these ads": the form posts back here with a signature bound to the target (a
 * public page has no session for the usual CSRF token), and the person's address is put on the
 * client's suppression list (source opt_out). Cross-site posts are refused by Origin and
 * Sec-Fetch-Site as well.
 */
const WHY_CSP = [
  "default-src 'none'",
  "img-src 'self' data:",
  "style-src 'unsafe-inline'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const STYLE = `body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;background:#f8fafc;color:#334155;font:17px/1.6 Inter,ui-sans-serif,system-ui,-apple-system,'Segoe UI',Roboto,Arial,sans-serif}
main{box-sizing:border-box;width:100%;max-width:560px;padding:32px 24px}
h1{font-size:28px;line-height:1.25;color:#0f172a;margin:0 0 16px}
p{margin:0 0 14px}
.note{font-size:14px;color:#475569}
button{font:inherit;font-weight:600;padding:12px 22px;border-radius:8px;border:0;background:#b91c1c;color:#fff;cursor:pointer}
button:focus-visible{outline:3px solid #fca5a5;outline-offset:2px}
.done{padding:14px 16px;border-radius:8px;background:#dcfce7;color:#14532d}`;

function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="same-origin">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>${body}</main>
</body>
</html>
`;
}

const GENERIC = page(
  'Why am I seeing this?',
  `<h1>Why am I seeing this?</h1>
<p>A company's sales team uses Rally to show a few ads to the people it is in touch with, so that
their messages are easier to recognise. The ad you saw was shown on their behalf.</p>
<p class="note">Each ad and e-mail links to a personal version of this page, where you can stop these
ads. If you reached this page without one, ask the company that contacted you to stop, or write to
the address on their website.</p>`,
);

type Person = {
  clientId: string;
  email: string | null;
  company: string;
  repName: string;
};

async function personOf(app: FastifyInstance, token: string): Promise<Person | null> {
  const [row] = await app.db
    .select({
      clientId: targets.clientId,
      email: prospects.email,
      clientName: clients.name,
      repCompany: salesReps.companyName,
      repFirst: salesReps.firstName,
      repLast: salesReps.lastName,
    })
    .from(targets)
    .innerJoin(prospects, eq(prospects.id, targets.prospectId))
    .innerJoin(clients, eq(clients.id, targets.clientId))
    .leftJoin(salesReps, eq(salesReps.id, targets.salesRepId))
    .where(eq(targets.token, token))
    .limit(1);
  if (!row) return null;
  return {
    clientId: row.clientId,
    email: row.email,
    company: (row.repCompany ?? '').trim() || row.clientName,
    repName: [row.repFirst, row.repLast]
      .map((v) => (v ?? '').trim())
      .filter(Boolean)
      .join(' '),
  };
}

function send(reply: FastifyReply, status: number, html: string) {
  return reply
    .code(status)
    .header('content-security-policy', WHY_CSP)
    .header('cache-control', 'no-store')
    .type('text/html; charset=utf-8')
    .send(html);
}

function explainHtml(p: Person, action: string, formToken: string): string {
  const company = escapeHtml(p.company);
  const who = p.repName ? `${escapeHtml(p.repName)} at ${company}` : `Someone on ${company}'s sales team`;
  const form = p.email
    ? `<form method="post" action="${escapeHtml(action)}">
<input type="hidden" name="csrf" value="${escapeHtml(formToken)}">
<button type="submit">Stop showing me these ads</button>
</form>
<p class="note">${company} will no longer show you these ads or count whether you see them, in any of
its campaigns. Nothing else is sent to you or asked of you.</p>`
    : `<p class="note">To stop these ads, reply to ${company}'s e-mail and ask them to stop.</p>`;
  return page(
    'Why am I seeing this?',
    `<h1>Why am I seeing this?</h1>
<p>This ad was shown to you by <strong>${company}</strong>. ${who} has been in touch with you, and
${company} uses Rally to show the people its sales team contacts a few ads about it.</p>
<p>Rally records that the ad was shown and whether it was opened, for ${company}'s sales team. It
does not sell or share that with anyone else.</p>
${form}`,
  );
}

function confirmationHtml(p: Person): string {
  const company = escapeHtml(p.company);
  return page(
    'You will not see these ads again',
    `<h1>You will not see these ads again</h1>
<p class="done" role="status">Done: ${company} will not show you these ads any more.</p>
<p>From now on their ads show you a blank image, and nothing about you is counted, in any of
${company}'s campaigns. A later import of your address by ${company} does not bring the ads back.</p>
<p class="note">You can close this page.</p>`,
  );
}

/** A post from another site is refused; a browser sends one of these headers with every form post. */
function crossSite(request: FastifyRequest, publicUrl: string): boolean {
  const site = request.headers['sec-fetch-site'];
  if (site === 'cross-site') return true;
  const origin = request.headers.origin;
  if (typeof origin === 'string' && origin !== 'null') {
    return origin !== new URL(publicUrl).origin;
  }
  return false;
}

export const whyPageRoutes: FastifyPluginAsync = async (app) => {
  const signer = createWhySigner(app.config.appSecret);
  // Only this plugin reads form posts (the API takes JSON).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: 4096 },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(String(body)))),
  );

  app.get('/why', { config: { access: 'public' }, schema: { hide: true } }, async (_request, reply) =>
    send(reply, 200, GENERIC),
  );

  // The e-mail snippet's link: the click URL the platform fills in, with `/why` after it. The
  // neutral pair's URL (`/t/neutral/c`) names no target and gets the general page.
  app.get<{ Params: { token: string } }>(
    '/t/:token/c/why',
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const { token } = request.params;
      if (!/^[A-Za-z0-9_-]{1,64}$/.test(token)) return send(reply, 404, GENERIC);
      return reply
        .code(303)
        .header('cache-control', 'no-store')
        .header('location', signer.link('', token))
        .send();
    },
  );

  app.get<{ Params: { signed: string } }>(
    '/why/:signed',
    { config: { access: 'public' }, schema: { hide: true } },
    async (request, reply) => {
      const token = signer.open(request.params.signed);
      const person = token ? await personOf(app, token) : null;
      if (!token || !person) return send(reply, 404, GENERIC);
      if (person.email && (await app.suppressions.isSuppressed(person.clientId, person.email))) {
        return send(reply, 200, confirmationHtml(person));
      }
      return send(reply, 200, explainHtml(person, `/why/${request.params.signed}`, signer.formToken(token)));
    },
  );

  app.post<{ Params: { signed: string }; Body: unknown }>(
    '/why/:signed',
    { config: { access: 'public', csrf: false }, schema: { hide: true } },
    async (request, reply) => {
      const token = signer.open(request.params.signed);
      const person = token ? await personOf(app, token) : null;
      if (!token || !person) return send(reply, 404, GENERIC);
      const body = (request.body ?? {}) as Record<string, unknown>;
      if (crossSite(request, app.config.publicUrl) || !signer.formTokenHolds(token, body.csrf)) {
        return send(
          reply,
          403,
          page(
            'Please try again',
            `<h1>Please try again</h1><p>This request did not come from the page itself. Open the
<a href="/why/${escapeHtml(request.params.signed)}">Why am I seeing this?</a> page and press the button there.</p>`,
          ),
        );
      }
      if (!person.email) return send(reply, 200, explainHtml(person, '', ''));
      await app.suppressions.suppress(person.clientId, person.email, {
        source: 'opt_out',
        reason: 'Stopped the ads on the "Why am I seeing this?" page',
        by: null,
      });
      return reply.code(303).header('location', `/why/${request.params.signed}`).send();
    },
  );
};

export { createWhySigner };
