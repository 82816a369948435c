import { sql } from 'drizzle-orm';
import type { SetupChecklist, SetupStep } from '@rally/shared/schemas/setup';
import { SEQUENCE_SOURCES } from '@rally/shared/schemas/integrations';
import type { Db } from '../../db/client.ts';

type Row = Record<string, unknown>;
const rowsOf = (r: unknown): Row[] => (Array.isArray(r) ? r : ((r as { rows?: Row[] }).rows ?? [])) as Row[];

/** Sources that bring prospects and cadences (a file import does too). */
const PROSPECT_SOURCES = [...SEQUENCE_SOURCES, 'fileforce'];
const CRM_SOURCES = ['salesforce', 'hubspot', 'marketo'];
const list = (xs: readonly string[]) =>
  sql.join(
    xs.map((x) => sql`${x}`),
    sql`, `,
  );

/**
 * The setup checklist of one client (issue 42 item 5): six steps, each done or naming what it blocks
 * and the screen that does it, in the order a new account takes them. One query, from the current
 * state. `billing`: the role may open billing (else the card step says to ask an owner).
 */
export async function setupChecklist(
  db: Db,
  clientId: string,
  opts: { billing: boolean; integrations: boolean },
): Promise<SetupChecklist> {
  const [r = {}] = rowsOf(
    await db.execute(sql`
      select
        exists (select 1 from integrations i where i.client_id = ${clientId} and i.is_active
                  and i.source in (${list(PROSPECT_SOURCES)})
                  and (i.source <> 'fileforce' or exists (
                        select 1 from cadences c where c.client_id = ${clientId} and c.integration_id = i.id)))
          as source,
        exists (select 1 from content ct where ct.client_id = ${clientId} and ct.status = 'published'
                  and not ct.is_archived) as ad,
        exists (select 1 from content ct where ct.client_id = ${clientId} and not ct.is_archived) as draft,
        exists (select 1 from cadences c where c.client_id = ${clientId} and c.is_super
                  and c.status = 'active') as ads_on,
        exists (select 1 from billing_accounts b where b.client_id = ${clientId}
                  and b.card_last4 is not null) as card,
        exists (select 1 from integrations i where i.client_id = ${clientId} and i.is_active
                  and i.source in (${list(CRM_SOURCES)})) as crm,
        exists (select 1 from opportunities o where o.client_id = ${clientId}) as revenue,
        (select count(*) from sales_reps s where s.client_id = ${clientId} and s.selected and s.is_active)
          as reps,
        (select count(*) from sales_reps s where s.client_id = ${clientId} and s.selected and s.is_active
                  and coalesce(s.photo_url, '') = '') as no_photo
    `),
  );
  const reps = Number(r.reps ?? 0);
  const noPhoto = Number(r.no_photo ?? 0);
  const steps: SetupStep[] = [
    {
      key: 'source',
      done: Boolean(r.source),
      title: 'Bring in your prospects',
      detail: r.source
        ? 'Your cadences and prospects are in Rally.'
        : 'No sequence platform connected and no prospects imported: nobody can see an ad yet.',
      link: { path: '/onboarding', label: 'Connect or import' },
      ask_owner: !opts.integrations,
    },
    {
      key: 'ad',
      done: Boolean(r.ad),
      title: 'Make an ad',
      detail: r.ad
        ? 'You have a published ad.'
        : r.draft
          ? 'Your ad is a draft: publish it so cadences can show it.'
          : 'No ad yet: a cadence with ads on has nothing to show.',
      link: { path: '/content', label: r.draft ? 'Publish your ad' : 'Make an ad' },
      ask_owner: false,
    },
    {
      key: 'ads_on',
      done: Boolean(r.ads_on),
      title: 'Switch ads on for a cadence',
      detail: r.ads_on
        ? 'Ads are on for at least one cadence.'
        : 'Ads are off on every cadence: no prospect sees an ad.',
      link: { path: '/cadence', label: 'Open cadences' },
      ask_owner: false,
    },
    {
      key: 'card',
      done: Boolean(r.card),
      title: 'Add a payment card',
      detail: r.card
        ? 'A card is on file.'
        : 'No card on file: superprospects cannot be billed, so ads stop at the first invoice.',
      link: { path: '/settings/billing', label: 'Add a card' },
      ask_owner: !opts.billing,
    },
    {
      key: 'crm',
      done: Boolean(r.crm) || Boolean(r.revenue),
      title: 'Connect your CRM',
      detail:
        r.crm || r.revenue
          ? 'Opportunities come in, so Revenue can tie them to your ads.'
          : 'No CRM connected: Revenue has no opportunities to tie to your ads.',
      link: { path: '/settings/connections', label: 'Connect a CRM' },
      ask_owner: !opts.integrations,
    },
    {
      key: 'photo',
      done: reps > 0 && noPhoto === 0,
      title: "Add your sales reps' photos",
      detail:
        reps === 0
          ? 'No sales rep is chosen yet: ads feature the rep of each prospect.'
          : noPhoto === 0
            ? 'Every sales rep has a photo.'
            : `${noPhoto} of ${reps} sales ${reps === 1 ? 'rep' : 'reps'} ${noPhoto === 1 ? 'has' : 'have'} no photo: their ads show initials instead of a face.`,
      link: { path: '/client-settings/sales-reps', label: 'Add photos' },
      ask_owner: !opts.integrations,
    },
  ];
  return { steps, done: steps.filter((s) => s.done).length, total: steps.length };
}
