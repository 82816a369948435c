/**
 * A CSS `url()` for a URL a user gave: one quoted string with its quotes and backslashes escaped
 * (line breaks as hex escapes), so no value, stored or being typed, can close it and add a second
 * url() that the browser would fetch, or another declaration.
 */
export function cssUrl(url: string): string {
  const inString = url
    .replace(/["\\]/g, '\\$&')
    .replace(/[\n\r\f]/g, (c) => `\\${c.charCodeAt(0).toString(16)} `);
  return `url("${inString}")`;
}
