import { describe, expect, it } from 'vitest';
import {
  PERSONALISATION_TAGS,
  fillTagsHtml,
  fillTagsText,
  tagMarkup,
  tagsToTokens,
  tagsWithoutFallback,
  tokensToTags,
} from './personalise.ts';

describe('fillTagsText', () => {
  it.each(PERSONALISATION_TAGS.map((t) => [t.id]))('fills %s with its value, else its fallback', (id) => {
    const text = `A ${tagMarkup(id, 'fallback words')} B`;
    expect(fillTagsText(text, { [id]: 'Value' })).toBe('A Value B');
    expect(fillTagsText(text, {})).toBe('A fallback words B');
    // An empty or blank value is no value.
    expect(fillTagsText(text, { [id]: '  ' })).toBe('A fallback words B');
  });

  it.each(PERSONALISATION_TAGS.map((t) => [t.id, t.fallback]))(
    'renders %s stored without a fallback with its default (%j)',
    (id, fallback) => {
      const legacy = `<span data-id="${id}">Label</span>`;
      expect(fillTagsText(`Hi ${legacy}`, {})).toBe(`Hi ${fallback}`);
      expect(fillTagsText(legacy, { [id]: 'Sam' })).toBe('Sam');
    },
  );

  it('never leaves markup or a leading comma: the demo headline', () => {
    const headline = `${tagMarkup('prospect_company_name', 'Your warehouse')}, twice as fast`;
    expect(fillTagsText(headline, {})).toBe('Your warehouse, twice as fast');
    expect(fillTagsText(headline, { prospect_company_name: 'Initech' })).toBe('Initech, twice as fast');
    const legacy = '<span data-id="prospect_first_name">Prospect first name</span>, twice as fast';
    // A fallback opening the text is capitalised; a value is left as it is.
    expect(fillTagsText(legacy, {})).toBe('There, twice as fast');
    expect(fillTagsText(legacy, { prospect_first_name: 'al' })).toBe('al, twice as fast');
  });

  it('keeps plain values plain and fallbacks with quotes and ampersands intact', () => {
    const text = tagMarkup('prospect_company_name', 'R&D "team"');
    expect(text).toContain('data-fallback="R&amp;D &quot;team&quot;"');
    expect(fillTagsText(text, {})).toBe('R&D "team"');
    expect(fillTagsText(text, { prospect_company_name: '<b>&' })).toBe('<b>&');
  });

  it('escapes values and fallbacks in HTML', () => {
    const html = `<p>Hi ${tagMarkup('prospect_first_name', 'there & you')}</p>`;
    expect(fillTagsHtml(html, {})).toBe('<p>Hi there &amp; you</p>');
    expect(fillTagsHtml(html, { prospect_first_name: '<i>Al</i>' })).toBe('<p>Hi &lt;i&gt;Al&lt;/i&gt;</p>');
  });
});

describe('tagsWithoutFallback', () => {
  it('lists tags with no or a blank fallback', () => {
    expect(tagsWithoutFallback(`${tagMarkup('first_name', 'us')} ${tagMarkup('title', null)}`)).toEqual([
      'title',
    ]);
    expect(tagsWithoutFallback(tagMarkup('title', '  '))).toEqual(['title']);
    expect(tagsWithoutFallback('no tags')).toEqual([]);
  });
});

describe('editor tokens', () => {
  it('shows tags as {{Label | fallback}} and reads them back', () => {
    const stored = `Hi ${tagMarkup('prospect_first_name', 'there')}, from ${tagMarkup('company_name', 'us')}`;
    const shown = tagsToTokens(stored);
    expect(shown).toBe('Hi {{Prospect first name | there}}, from {{Rep company | us}}');
    expect(shown).not.toMatch(/[<>]/);
    expect(tokensToTags(shown)).toBe(stored);
  });

  it('shows a stored tag without a fallback with its default', () => {
    expect(tagsToTokens('<span data-id="prospect_first_name">Prospect first name</span>!')).toBe(
      '{{Prospect first name | there}}!',
    );
  });

  it('accepts ids and any case; a token without a fallback is refused later', () => {
    expect(tokensToTags('{{prospect_first_name|Hi}}')).toBe(tagMarkup('prospect_first_name', 'Hi'));
    expect(tokensToTags('{{PROSPECT FIRST NAME}}')).toBe(tagMarkup('prospect_first_name', null));
    expect(tagsWithoutFallback(tokensToTags('{{Prospect title}}'))).toEqual(['prospect_title']);
  });

  it('leaves other braces as text', () => {
    expect(tokensToTags('{{Not a tag!}} and {single}')).toBe('{{Not a tag!}} and {single}');
  });
});
