import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AD_FIELD_SOURCES } from '../schemas/ad-delivery.ts';
import { buildEmailSnippet, fillSnippet, snippetHtml } from './email-snippet.ts';

// The ad in its link, then the small "Why am I seeing this?" link: the same click URL with /why (issue 44).
const SHAPE =
  /^<a href="([^"<>]*)" target="_blank" style="[^"<>]*"><img src="([^"<>]*)" width="600" height="300" alt="([^"<>]*)" style="[^"<>]*"><\/a><a href="\1\/why" target="_blank" style="[^"<>]*">Why am I seeing this\?<\/a>$/;

describe('the e-mail snippet in each platform’s merge-field syntax (issue 38)', () => {
  it.each([
    [
      'salesforce',
      'Rally_Ad_Image__c',
      'Rally_Ad_Click__c',
      '{{{Recipient.Rally_Ad_Image__c}}}',
      '{{{Recipient.Rally_Ad_Click__c}}}',
    ],
    [
      'hubspot',
      'rally_ad_image',
      'rally_ad_click',
      '{{ contact.rally_ad_image }}',
      '{{ contact.rally_ad_click }}',
    ],
    ['marketo', 'rallyAdImage', 'rallyAdClick', '{{lead.rallyAdImage}}', '{{lead.rallyAdClick}}'],
    ['outreach', 'custom7', 'custom8', '{{custom7}}', '{{custom8}}'],
    ['salesloft', 'rally_ad_image', 'rally_ad_click', '{{rally_ad_image}}', '{{rally_ad_click}}'],
    ['apolloio', 'rally_ad_image', 'rally_ad_click', '{{rally_ad_image}}', '{{rally_ad_click}}'],
  ] as const)(
    '%s: an <a> to the click field around a 600 px <img> of the image field',
    (source, image, click, imageToken, clickToken) => {
      const snippet = buildEmailSnippet({ source, imageField: image, clickField: click });
      const [first] = snippet.variants;
      expect(first?.imageToken).toBe(imageToken);
      expect(first?.clickToken).toBe(clickToken);
      const m = SHAPE.exec(first?.html ?? '');
      expect(m, first?.html).not.toBeNull();
      expect(m?.[1]).toBe(clickToken);
      expect(m?.[2]).toBe(imageToken);
      expect(m?.[3]).toBe('A personal note for you. Click to open it.');
      expect(first?.text).toBe(`A personal note for you: ${clickToken}`);
    },
  );

  it('Salesforce also gives the Classic template form, on Contact by default or on Lead', () => {
    const onContact = buildEmailSnippet({ source: 'salesforce', imageField: 'Img__c', clickField: 'Clk__c' });
    expect(onContact.variants.map((v) => [v.id, v.imageToken, v.clickToken])).toEqual([
      ['lightning', '{{{Recipient.Img__c}}}', '{{{Recipient.Clk__c}}}'],
      ['classic', '{!Contact.Img__c}', '{!Contact.Clk__c}'],
    ]);
    const onLead = buildEmailSnippet({
      source: 'salesforce',
      imageField: 'Img__c',
      clickField: 'Clk__c',
      object: 'Lead',
    });
    expect(onLead.variants[1]?.clickToken).toBe('{!Lead.Clk__c}');
  });

  it('says where the custom field spelling is not documented (Salesloft, Apollo)', () => {
    const verified = Object.fromEntries(
      AD_FIELD_SOURCES.map((source) => [
        source,
        buildEmailSnippet({ source, imageField: 'a', clickField: 'b' }).verified,
      ]),
    );
    expect(verified).toEqual({
      salesloft: false,
      outreach: true,
      apolloio: false,
      hubspot: true,
      salesforce: true,
      marketo: true,
    });
  });

  it('takes its alt text and plain-text label', () => {
    const s = buildEmailSnippet(
      { source: 'outreach', imageField: 'custom1', clickField: 'custom2' },
      { alt: 'Acme & you: "a note"', label: 'Your page' },
    );
    expect(s.variants[0]?.html).toContain('alt="Acme &amp; you: &quot;a note&quot;"');
    expect(s.variants[0]?.text).toBe('Your page: {{custom2}}');
  });

  it('no field name breaks out of its attribute or its token (any characters at all)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 60 }),
        fc.string({ maxLength: 60 }),
        fc.string(),
        (image, click, alt) => {
          for (const source of AD_FIELD_SOURCES) {
            const snippet = buildEmailSnippet({ source, imageField: image, clickField: click }, { alt });
            for (const v of snippet.variants) {
              expect(SHAPE.test(v.html), v.html).toBe(true);
              expect(v.text.split('\n')).toHaveLength(1);
            }
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('fillSnippet: the snippet as the platform sends it to one person', () => {
  it('puts the person’s URLs where the tokens are, escaped for HTML', () => {
    const s = buildEmailSnippet({ source: 'hubspot', imageField: 'img', clickField: 'clk' });
    const v = s.variants[0]!;
    const values = {
      [v.imageToken]: 'https://rally.example/t/abc/ad/email.png',
      [v.clickToken]: 'https://rally.example/t/abc/c?x=1&y=2',
    };
    expect(fillSnippet(v.html, values, true)).toBe(
      snippetHtml('https://rally.example/t/abc/ad/email.png', 'https://rally.example/t/abc/c?x=1&y=2'),
    );
    expect(fillSnippet(v.html, values, true)).toContain('href="https://rally.example/t/abc/c?x=1&amp;y=2"');
    expect(fillSnippet(v.text, values, false)).toBe(
      'A personal note for you: https://rally.example/t/abc/c?x=1&y=2',
    );
  });
});
