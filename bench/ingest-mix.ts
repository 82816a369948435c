import type { AdRendition } from '@rally/shared/schemas/content';
import { tagMarkup } from '@rally/shared';
import type { Database } from '../apps/server/src/db/client.ts';
import {
  cadenceDays,
  cadences,
  clientSettings,
  clients,
  companies,
  content,
  integrations,
  prospects,
  salesReps,
  targets,
} from '../apps/server/src/db/schema/index.ts';
import { escapeText, normaliseColors } from '../apps/server/src/modules/content/text.ts';
import type { peekVersioned } from '../apps/server/src/modules/tracking/repository.ts';
import { samplePortraitPng } from '../apps/server/src/modules/creative/sample-images.ts';

/**
 * The ingest bench's realistic mix (issue 43): what a customer's tags look like, where the uniform
 * case is one ad with no prospect fields. Three clients, each with five cadences of four days, four
 * reps (two with a photo), four ads modelled on the demo's (two name the prospect's first name or
 * company, two the rep), prospects at eight companies; impressions over the four sizes and the
 * e-mail rendition, each target's count drawn from a Zipf law (a few targets seen dozens of times,
 * most once or twice), with the user agents and addresses of the mail clients, image proxies,
 * Apple's prefetch and gateways that the classifier (decision 0017) tells apart.
 */

const CLIENTS = 3;
const CADENCES = 5;
const DAYS = 4;
const REPS = 4;
/** Targets per client. */
export const MIX_TARGETS = 1_000;
/**
 * Distinct prospect identities (first name and company) per client: first renders cost 0.05–0.6 s
 * each (one per person, ad and size), so the mix bounds how many the warm-up must make; the serving
 * path is the same whatever the names.
 */
const PEOPLE = 12;
const FIRST = [
  'Ana',
  'Ben',
  'Chloé',
  'Dmitri',
  'Emeka',
  'Fatima',
  'Grace',
  'Hiro',
  'Ines',
  'Jonas',
  'Kai',
  'Lena',
];
const COMPANY = ['Globex', 'Initech', 'Umbrella', 'Hooli', 'Vandelay', 'Stark', 'Wayne', 'Tyrell'];

const tag = (id: string, fallback: string) => tagMarkup(id, fallback);
const ADS = [
  {
    templateId: 1,
    title: `${tag('prospect_first_name', 'Hi')}, your growth audit is ready`,
    imageText: 'Pipeline up 38% in 90 days',
  },
  {
    templateId: 3,
    title: `Meet ${tag('first_name', 'your strategist')}`,
    imageText: 'Twenty minutes, three quick wins',
  },
  {
    templateId: 2,
    title: 'Robots that pick 2x faster',
    imageText: `${tag('prospect_company_name', 'Your warehouse')}, twice as fast`,
  },
  {
    templateId: 4,
    title: 'See the A-200 on your floor plan',
    imageText: `Installed in a weekend by ${tag('first_name', 'our team')}`,
  },
];
const PALETTES = [
  { background: '#0b3d91', text: '#ffffff', accent: '#ffb400' },
  { background: '#111827', text: '#ffffff', accent: '#f97316' },
  { background: '#ffffff', text: '#0b3d91', accent: '#1c7ed6' },
];

/** One target's tag: its token, the rendition its channel shows, and who fetches it. */
export type MixTarget = { token: string; size: AdRendition; agent: number; ip: string };

/** Seeds the mix's clients; returns their targets (random order within each client). */
export async function seedMix(database: Database): Promise<MixTarget[]> {
  const { db } = database;
  const out: MixTarget[] = [];
  for (let c = 0; c < CLIENTS; c++) {
    const [client] = await db
      .insert(clients)
      .values({ name: `Mix client ${c}` })
      .returning();
    const clientId = client!.id;
    await db.insert(clientSettings).values({
      clientId,
      colors: normaliseColors(PALETTES[c]!),
      websiteUrl: `https://mix${c}.example`,
      landingButtonName: 'Book a meeting',
    });
    const [integration] = await db.insert(integrations).values({ clientId, source: 'fileforce' }).returning();
    const integrationId = integration!.id;
    const reps = await db
      .insert(salesReps)
      .values(
        Array.from({ length: REPS }, (_, i) => ({
          clientId,
          integrationId,
          externalId: `rep${i}`,
          firstName: FIRST[(i * 5 + c) % FIRST.length]!,
          lastName: 'Rep',
          title: 'Account Executive',
          companyName: `Mix ${c}`,
          calendarUrl: 'https://cal.example/mix',
          // Half the reps have a photo (a picture as a data URI: no network in the bench).
          photoUrl:
            i % 2 === 0
              ? `data:image/png;base64,${samplePortraitPng(96, 40 * i + 90 * c).toString('base64')}`
              : null,
          selected: true,
        })),
      )
      .returning({ id: salesReps.id });
    const ads = await db
      .insert(content)
      .values(
        ADS.map((ad, i) => ({
          clientId,
          name: `Mix ad ${i}`,
          status: 'published' as const,
          templateId: ad.templateId,
          title: escapeText(ad.title),
          imageText: escapeText(ad.imageText),
          colors: normaliseColors(PALETTES[(c + i) % PALETTES.length]!),
          landingPagePayload: { content_html: '', footer_html: '', hero_html: '', hero_img: '' },
          updatedAt: new Date(),
        })),
      )
      .returning({ id: content.id });
    const cads = await db
      .insert(cadences)
      .values(
        Array.from({ length: CADENCES }, (_, i) => ({
          clientId,
          integrationId,
          externalId: `mix${i}`,
          name: `Mix cadence ${i}`,
          isSuper: true,
        })),
      )
      .returning({ id: cadences.id });
    await db.insert(cadenceDays).values(
      cads.flatMap((cad, i) =>
        Array.from({ length: DAYS }, (_, d) => ({
          clientId,
          cadenceId: cad.id,
          dayNumber: d + 1,
          contentDays: [{ content_id: ads[(i + d) % ads.length]!.id, day_transition_actions: [] }],
        })),
      ),
    );
    const cos = await db
      .insert(companies)
      .values(COMPANY.map((name, i) => ({ clientId, integrationId, externalId: `co${i}`, name })))
      .returning({ id: companies.id });
    const people = await db
      .insert(prospects)
      .values(
        Array.from({ length: MIX_TARGETS }, (_, i) => ({
          clientId,
          integrationId,
          externalId: `p${i}`,
          firstName: FIRST[(i % PEOPLE) % FIRST.length]!,
          lastName: `Mix${i}`,
          title: 'Head of Operations',
          companyId: cos[(i % PEOPLE) % cos.length]!.id,
        })),
      )
      .returning({ id: prospects.id });
    const rows = await db
      .insert(targets)
      .values(
        people.map((p, i) => ({
          clientId,
          // The person's identity, rep, cadence and day move together (i mod 12, 4, …), so the
          // distinct images stay a few hundred.
          cadenceId: cads[(i % PEOPLE) % CADENCES]!.id,
          dayNumber: ((i % PEOPLE) % DAYS) + 1,
          prospectId: p.id,
          salesRepId: reps[i % REPS]!.id,
        })),
      )
      .returning({ token: targets.token });
    rows.forEach((r, i) => {
      const pick = hash(c * 100_003 + i);
      out.push({
        token: r.token,
        size: renditionOf(pick),
        agent: agentOf(pick >>> 8),
        ip: ipOf(pick >>> 16, i),
      });
    });
  }
  return out;
}

/** A stable pseudo-random 32-bit number (so the mix is the same in every run). */
export function hash(n: number): number {
  let x = (n + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Half the impressions are e-mail opens; the rest the four display sizes. */
function renditionOf(pick: number): AdRendition {
  const p = pick % 100;
  if (p < 50) return 'email';
  if (p < 70) return '300x250';
  if (p < 82) return '1200x628';
  if (p < 92) return '1080x1080';
  return '728x90';
}

/**
 * Who fetches the tags (decision 0017's cases). An e-mail rendition is opened in Gmail (its image
 * proxy), Apple Mail (some through Mail Privacy Protection's bare agent from Apple's ranges),
 * Outlook (desktop, or Microsoft's proxy from Exchange Online's ranges), Yahoo; a gateway scans some
 * with a browser's agent from its ranges. Display sizes are browsers'.
 */
export const MIX_AGENTS: { ua: string; ip?: (n: number) => string; email: boolean }[] = [
  {
    ua: 'Mozilla/5.0 (Windows NT 5.1; rv:11.0) Gecko Firefox/11.0 (via ggpht.com GoogleImageProxy)',
    email: true,
  },
  {
    ua: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko)',
    email: true,
  },
  { ua: 'Mozilla/5.0', ip: (n) => `17.${(n >> 8) & 255}.${n & 255}.${(n >> 4) & 255}`, email: true },
  {
    ua: 'Mozilla/4.0 (compatible; ms-office; MSOffice 16)',
    email: true,
  },
  {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    ip: (n) => `40.92.${n & 255}.${(n >> 8) & 255}`,
    email: true,
  },
  { ua: 'YahooMailProxy; https://help.yahoo.com/kb/yahoo-mail-proxy-SLN28749.html', email: true },
  {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/124.0 Safari/537.36',
    ip: (n) => `148.163.${128 + (n & 31)}.${(n >> 5) & 255}`,
    email: true,
  },
  {
    ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    email: false,
  },
  {
    ua: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
    email: false,
  },
  { ua: 'Mozilla/5.0 (X11; Linux x86_64; rv:127.0) Gecko/20100101 Firefox/127.0', email: false },
];
const EMAIL_SHARE = [40, 20, 8, 15, 5, 7, 5]; // per cent of e-mail opens, in MIX_AGENTS order
const EMAIL_AGENTS = EMAIL_SHARE.flatMap((n, i) => Array<number>(n).fill(i));

function agentOf(pick: number): number {
  return pick % 2 === 0 ? EMAIL_AGENTS[pick % EMAIL_AGENTS.length]! : 7 + (pick % 3);
}

function ipOf(pick: number, i: number): string {
  return `${(pick % 200) + 23}.${i & 255}.${(pick >> 8) & 255}.${(i >> 8) + 1}`;
}

/** A target's agent for its rendition: e-mail renditions get mail agents, display sizes browsers'. */
function agentFor(t: MixTarget): number {
  const emailAgent = MIX_AGENTS[t.agent]!.email;
  if ((t.size === 'email') === emailAgent) return t.agent;
  return t.size === 'email' ? EMAIL_AGENTS[(t.agent * 7) % EMAIL_AGENTS.length]! : 7 + (t.agent % 3);
}

/**
 * The load's lines (`path<TAB>agent<TAB>address`): `count` impressions, each of a target drawn by
 * a Zipf law (exponent `s`) over the targets in a fixed shuffled order, so some targets are seen
 * dozens of times and most once or twice; shuffled, so repeats are spread over the run.
 */
export function mixLines(mix: MixTarget[], count: number, s = 1.1): string[] {
  const rank = zipfRanks(mix.length, s);
  const order = mix.map((_, i) => i).sort((a, b) => hash(a * 7 + 1) - hash(b * 7 + 1));
  const lines: string[] = [];
  for (let k = 0; k < count; k++) {
    const t = mix[order[rank(hash(k * 31 + 17) / 2 ** 32)]!]!;
    const agent = agentFor(t);
    const ip = MIX_AGENTS[agent]!.ip?.(hash(k)) ?? t.ip;
    lines.push(`/t/${t.token}/ad/${t.size}.png\t${agent}\t${ip}`);
  }
  return lines;
}

/** Ranks 0 to n - 1 drawn by a Zipf law of exponent `s`: `rank(u)` for `u` uniform in [0, 1). */
export function zipfRanks(n: number, s = 1.1): (u: number) => number {
  const cumulative: number[] = [];
  const weights = Array.from({ length: n }, (_, r) => 1 / Math.pow(r + 1, s));
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  for (const w of weights) cumulative.push((acc += w / total));
  return (u) => {
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

/** The distinct (token, rendition) pairs of some lines: the images the warm-up must fetch once. */
export function distinctTags(lines: string[]): string[] {
  return [...new Set(lines.map((l) => l.split('\t')[0]!))];
}

/** A target's state as the tag reads it, with its version (what the fast lane enqueues against). */
export type PeekedTarget = NonNullable<Awaited<ReturnType<typeof peekVersioned>>>;

/** A person's 300x250 impression of `peeked` as the fast lane queues it (the database-alone loads). */
export function queuedImpression({ state, version }: PeekedTarget, ord: number, at: string) {
  return {
    ord,
    clientId: state.clientId,
    version,
    count: true,
    targetId: state.id,
    cadenceId: state.cadenceId,
    type: 'impression' as const,
    dayNumber: state.dayNumber,
    contentId: state.content?.id ?? null,
    size: '300x250',
    at,
    verdict: 'person',
    reason: 'browser',
  };
}
