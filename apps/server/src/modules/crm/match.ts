/**
 * The match keys between CRM records and Rally's (ARCHITECTURE.md §10): an account matches a company
 * by website domain, a contact matches a prospect by e-mail.
 */

/** "https://www.Example.com/about" → "example.com"; null when there is no host to take. */
export function domainOf(website: string | null | undefined): string | null {
  const raw = website?.trim();
  if (!raw) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let host: string;
  try {
    host = new URL(withScheme).hostname.toLowerCase();
  } catch {
    return null;
  }
  host = host.replace(/^www\d*\./, '').replace(/\.$/, '');
  return host.includes('.') ? host : null;
}

export function emailKey(email: string | null | undefined): string | null {
  const e = email?.trim().toLowerCase();
  return e && e.includes('@') ? e : null;
}
