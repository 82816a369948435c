import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { EngagementVerdict, VerdictReason } from '@rally/shared/schemas/tracking';
import type { Db } from '../../db/client.ts';
import type { IngestItem, TrackingService } from '../tracking/index.ts';

const DAY_MS = 86_400_000;
/** The demo snippet went in this many days ago: its first e-mail impression. */
const INSTALLED_DAYS_AGO = 9;

function rowsOf<T>(result: unknown): T[] {
  return (result as { rows: T[] }).rows;
}

/** A small deterministic generator, so every fresh demo looks the same. */
function prng(seed: string): () => number {
  let s = createHash('sha256').update(seed).digest().readUInt32LE(0) || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4_294_967_296;
  };
}

type Opener = { share: number; verdict: EngagementVerdict; reason: VerdictReason };
const GMAIL: Opener = { share: 0.4, verdict: 'person', reason: 'gmail_proxy' };

/** Who opens a demo e-mail, roughly as B2B mailboxes split (decision 0017's kinds). */
const OPENERS: Opener[] = [
  GMAIL,
  { share: 0.25, verdict: 'person', reason: 'outlook' },
  { share: 0.1, verdict: 'person', reason: 'apple_mail' },
  { share: 0.2, verdict: 'machine_open', reason: 'apple_mpp' },
  { share: 0.05, verdict: 'bot', reason: 'crawler' },
];

function opener(roll: number) {
  let sum = 0;
  for (const o of OPENERS) {
    sum += o.share;
    if (roll < sum) return o;
  }
  return GMAIL;
}

/**
 * The demo's "Add ads to your e-mails" (issue 38): per demo client, its largest cadence (of a
 * sequence or file, not a cohort's hidden one, which the cadence list does not show) has the
 * snippet installed — e-mail-rendition impressions from INSTALLED_DAYS_AGO on, opened through
 * Gmail's proxy, Outlook and Apple Mail (counted), Apple's privacy prefetch and a crawler (kept,
 * not counted), and a few mail-gateway scanner clicks beside the prospects' own. Through the
 * tracking service, so counters follow the same rules as live traffic. Once per client: a client
 * with any e-mail impression is left alone.
 */
export async function seedDemoEmailAds(
  deps: { db: Db; tracking: TrackingService },
  clientIds: readonly string[],
  now = new Date(),
): Promise<{ events: number }> {
  const { db, tracking } = deps;
  let total = 0;
  for (const clientId of clientIds) {
    const [has] = rowsOf<{ one: number }>(
      await db.execute(sql`
        select 1 as one from engagement_events
        where client_id = ${clientId} and type = 'impression' and size = 'email' limit 1`),
    );
    if (has) continue;
    const [cadence] = rowsOf<{ id: number }>(
      await db.execute(sql`
        select c.id from cadences c
        where c.client_id = ${clientId} and c.kind = 'sequence' and c.status = 'active' and c.is_super
          and exists (select 1 from targets t where t.cadence_id = c.id)
        order by (select count(*) from targets t where t.cadence_id = c.id) desc, c.id
        limit 1`),
    );
    if (!cadence) continue;
    const targets = rowsOf<{ token: string }>(
      await db.execute(sql`
        select token from targets where client_id = ${clientId} and cadence_id = ${cadence.id}
        order by token`),
    );
    const start = now.getTime() - INSTALLED_DAYS_AGO * DAY_MS;
    const items: IngestItem[] = [];
    targets.forEach(({ token }, i) => {
      const rand = prng(`email:${clientId}:${token}`);
      // The first prospect opened the first e-mail on the day the snippet went in, in Gmail.
      const first = i === 0;
      // The next ones are each of the other kinds of opener, each with an open in the last few days,
      // so the feed's "last 7 days" shows every kind whatever the random tokens (e2e uncounted.spec
      // found a seed with no recent Apple prefetch).
      const fixed = i >= 1 && i < OPENERS.length ? OPENERS[i] : undefined;
      if (!first && !fixed && rand() < 0.3) return;
      const who = first ? GMAIL : (fixed ?? opener(rand()));
      const opens = first ? 2 : 1 + Math.floor(rand() * 3);
      for (let n = 0; n < opens; n++) {
        const recent = fixed && n === 0 ? now.getTime() - i * 6 * 3_600_000 : undefined;
        const at = new Date(first && n === 0 ? start : (recent ?? start + rand() * (now.getTime() - start)));
        items.push({
          token,
          type: 'impression',
          size: 'email',
          at,
          allowNoContent: true,
          verdict: who.verdict,
          reason: who.reason,
        });
        // A gateway scans the links as the mail arrives; a person clicks now and then.
        // (The Apple prefetch's prospect always: its gateway scans the mail it prefetches.)
        if (rand() < 0.08 || (fixed?.reason === 'apple_mpp' && n === 0)) {
          items.push({
            token,
            type: 'click',
            at: new Date(at.getTime() + 500),
            verdict: 'scanner',
            reason: 'gateway_agent',
          });
        } else if (who.verdict === 'person' && rand() < 0.1) {
          const clickAt = new Date(Math.min(now.getTime(), at.getTime() + 90_000));
          items.push({ token, type: 'click', at: clickAt, verdict: 'person', reason: 'browser' });
        }
      }
    });
    items.sort((a, b) => (a.at?.getTime() ?? 0) - (b.at?.getTime() ?? 0));
    const outcomes = await tracking.recordMany(items);
    total += outcomes.filter((o) => o.status === 'recorded').length;
  }
  return { events: total };
}
