import { tagMarkup } from '@rally/shared';
import type { Db } from '../../db/client.ts';
import { clientSettings, content, landingPages } from '../../db/schema/index.ts';
import { assigneeToStored, escapeText, normaliseColors, payloadToStored } from './text.ts';

type Colors = { background: string; text: string; accent: string; primary?: string };
type DemoAd = {
  id: string;
  name: string;
  templateId: number;
  title: string;
  imageText: string;
  primaryText: string;
  colors: Colors;
};
type DemoBrand = {
  landingPageId: string;
  landingPageName: string;
  website: string;
  facebookName: string;
  colors: Colors;
  company: string;
  hero: string;
  body: string;
  footer: string;
  ads: [DemoAd, DemoAd];
};

// Each tag carries the words shown when there is no value (a generic render, or an empty field).
const tag = (id: string, fallback: string) => tagMarkup(id, fallback);

/** Per demo client (by its fixed id): brand settings, one landing page and two published ads. */
const BRANDS: Record<string, DemoBrand> = {
  // Northwind Agency
  '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000001': {
    landingPageId: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100101',
    landingPageName: 'Growth audit',
    website: 'https://northwind.example',
    facebookName: 'Northwind Agency',
    colors: { background: '#0b3d91', text: '#ffffff', accent: '#ffb400', primary: '#0b3d91' },
    company: 'Northwind Agency',
    hero: `<h1>Your growth audit, ${tag('prospect_first_name', 'there')}</h1><p>Three quick wins for ${tag('prospect_company_name', 'your team')}'s pipeline, found by ${tag('first_name', 'our strategists')}.</p>`,
    body: '<h2>What you get</h2><ul><li>A review of your funnel, stage by stage</li><li>Benchmarks from 40 B2B teams like yours</li><li>A 90-day plan you can run without us</li></ul><p style="text-align:center">No slides. Twenty minutes, one call.</p>',
    footer: '<p>Northwind Agency · <a href="https://northwind.example/privacy">Privacy</a></p>',
    ads: [
      {
        id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100102',
        name: 'Growth audit',
        templateId: 1,
        title: `${tag('prospect_first_name', 'Hi')}, your growth audit is ready`,
        imageText: 'Pipeline up 38% in 90 days',
        primaryText: 'We looked at how teams like yours fill their pipeline. Here is what we found.',
        colors: { background: '#0b3d91', text: '#ffffff', accent: '#ffb400' },
      },
      {
        id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100103',
        name: 'Meet your strategist',
        templateId: 3,
        title: `Meet ${tag('first_name', 'your strategist')}`,
        imageText: 'Twenty minutes, three quick wins',
        primaryText: 'One call with a strategist who has grown 40 B2B pipelines.',
        colors: { background: '#ffffff', text: '#0b3d91', accent: '#ffb400' },
      },
    ],
  },
  // Acme Robotics
  '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c000002': {
    landingPageId: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100201',
    landingPageName: 'A-200 picking robot',
    website: 'https://acme-robotics.example',
    facebookName: 'Acme Robotics',
    colors: { background: '#111827', text: '#ffffff', accent: '#f97316', primary: '#f97316' },
    company: 'Acme Robotics',
    hero: `<h1>Pick twice as fast, ${tag('prospect_first_name', 'starting Monday')}</h1><p>The A-200 works next to your team at ${tag('prospect_company_name', 'your warehouse')}, no retooling.</p>`,
    body:
      '<h2>Why teams choose the A-200</h2><ol><li>Installed in a weekend</li><li>2x picks per hour, measured</li><li>Pays for itself in 11 months</li></ol><p>See it on your own floor plan with <strong>' +
      tag('first_name', 'our engineer') +
      '</strong>.</p>',
    footer:
      '<p>Acme Robotics · <a href="https://acme-robotics.example/legal">Legal</a> · <a href="mailto:hello@acme-robotics.example">hello@acme-robotics.example</a></p>',
    ads: [
      {
        id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100202',
        name: 'Picks per hour',
        templateId: 2,
        title: 'Robots that pick 2x faster',
        imageText: `${tag('prospect_company_name', 'Your warehouse')}, twice as fast`,
        primaryText: 'The A-200 works next to your pickers and doubles picks per hour.',
        colors: { background: '#111827', text: '#ffffff', accent: '#f97316' },
      },
      {
        id: '6f1c2a8e-4b1d-4c3a-9e51-0a7d2c100203',
        name: 'See it live',
        templateId: 4,
        title: 'See the A-200 on your floor plan',
        imageText: 'Installed in a weekend',
        primaryText: `${tag('first_name', 'Our engineer')} maps your floor and shows the A-200 in place.`,
        colors: { background: '#f97316', text: '#111827', accent: '#111827' },
      },
    ],
  },
};

/**
 * The content studio's demo (issue 8): per demo client, brand settings, a landing page and two
 * published ads linked to it. Fixed ids and "do nothing on conflict" make it idempotent, and
 * settings a user has changed are kept.
 */
export async function seedDemoContent(db: Db, clientIds: readonly string[]): Promise<{ created: number }> {
  let created = 0;
  for (const clientId of clientIds) {
    const brand = BRANDS[clientId];
    if (!brand) continue;
    await db.transaction(async (tx) => {
      await tx
        .insert(clientSettings)
        .values({
          clientId,
          colors: normaliseColors(brand.colors),
          websiteUrl: brand.website,
          facebookName: brand.facebookName,
          facebookPageUrl: `https://www.facebook.com/${brand.facebookName.replace(/\s+/g, '')}`,
          landingButtonName: 'Book a meeting',
          landingTriggerField: 'calendar_url',
          landingTriggerType: 'button',
          // The demo shows the Revenue screen (SPEC.md §3: revenue_report_enabled, default false).
          revenueReportEnabled: true,
        })
        .onConflictDoNothing();
      const assignee = assigneeToStored({
        first_name: '',
        last_name: '',
        title: '',
        company_name: brand.company,
        website: brand.website,
        calendar_url: '',
      });
      const page = await tx
        .insert(landingPages)
        .values({
          id: brand.landingPageId,
          clientId,
          name: escapeText(brand.landingPageName),
          landingPagePayload: payloadToStored({
            hero_html: brand.hero,
            content_html: brand.body,
            footer_html: brand.footer,
            hero_img: '',
            landing_button_name: 'Book a meeting',
            landing_trigger_field: 'calendar_url',
            landing_trigger_type: 'button',
          }),
          colors: normaliseColors(brand.colors),
          assignee,
        })
        .onConflictDoNothing()
        .returning({ id: landingPages.id });
      created += page.length;
      const ads = await tx
        .insert(content)
        .values(
          brand.ads.map((ad) => ({
            id: ad.id,
            clientId,
            name: escapeText(ad.name),
            status: 'published' as const,
            templateId: ad.templateId,
            title: escapeText(ad.title),
            imageText: escapeText(ad.imageText),
            primaryText: escapeText(ad.primaryText),
            colors: normaliseColors(ad.colors),
            assignee,
            landingPagePayload: payloadToStored({
              hero_html: '',
              content_html: '',
              footer_html: '',
              hero_img: '',
            }),
            landingPageId: brand.landingPageId,
            updatedAt: new Date(),
          })),
        )
        .onConflictDoNothing()
        .returning({ id: content.id });
      created += ads.length;
    });
  }
  return { created };
}
