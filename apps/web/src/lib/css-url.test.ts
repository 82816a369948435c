import { describe, expect, it } from 'vitest';
import { cssUrl } from './css-url.ts';

describe('cssUrl (issue 20: a URL in a style cannot add a second url() or a declaration)', () => {
  it('quotes a plain URL as it is', () => {
    expect(cssUrl('https://cdn.example/a.png?x=1&y=(2)')).toBe('url("https://cdn.example/a.png?x=1&y=(2)")');
  });

  it('escapes the quote, the backslash and line breaks that would end the string', () => {
    expect(cssUrl('https://a.example/?")/**/,url("https://b.example/')).toBe(
      'url("https://a.example/?\\")/**/,url(\\"https://b.example/")',
    );
    expect(cssUrl('https://a.example/\\"); color: red')).toBe(
      'url("https://a.example/\\\\\\"); color: red")',
    );
    expect(cssUrl('https://a.example/\n)')).toBe('url("https://a.example/\\a )")');
  });
});
