import { createHash } from 'node:crypto';

/**
 * Google's e-mail normalisation for Customer Match (Data Manager API › "Format user data",
 * developers.google.com/data-manager/api/devguides/concepts/formatting): lower-case; remove leading,
 * trailing and intermediate white space; for gmail.com and googlemail.com addresses only, remove
 * every period before the @ and a plus sign with all that follows it in the local part ("Example:
 * cloudy.sanfrancisco+shopping@gmail.com → cloudysanfrancisco@gmail.com"); other domains keep theirs
 * ("user.name+NYC@Example.com → user.name+nyc@example.com"). Null for what cannot be an address.
 */
export function normaliseEmailForGoogle(raw: string | null | undefined): string | null {
  if (!raw) return null;
  const email = raw.replace(/\s+/g, '').toLowerCase();
  const at = email.indexOf('@');
  if (at < 1 || at !== email.lastIndexOf('@') || at === email.length - 1) return null;
  let local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (domain === 'gmail.com' || domain === 'googlemail.com') {
    local = (local.split('+')[0] ?? '').replace(/\./g, '');
    if (!local) return null;
  }
  return `${local}@${domain}`;
}

/** SHA-256 of Google's normalised address, hex in lower case (the request says `encoding: HEX`). */
export function hashEmailForGoogle(raw: string | null | undefined): string | null {
  const email = normaliseEmailForGoogle(raw);
  return email === null ? null : createHash('sha256').update(email, 'utf8').digest('hex');
}
