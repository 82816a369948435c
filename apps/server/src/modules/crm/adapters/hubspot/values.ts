/** HubSpot's property values are strings: these read them (API-NOTES.md §4). */

export const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v : null);
/** HubSpot's number strings ("1250.5"); empty → null. */
export const numeric = (v: unknown): number | null => {
  const s = typeof v === 'number' ? String(v) : str(v);
  if (s === null) return null;
  const n = Number(s);
  return Number.isFinite(n) ? n : null;
};
export const flag = (v: unknown) => v === true || v === 'true';
export const iso = (v: unknown): string | null => {
  const s = str(v);
  if (!s) return null;
  const ms = /^\d+$/.test(s) ? Number(s) : Date.parse(s);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
};
