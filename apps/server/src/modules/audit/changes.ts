/**
 * The names of the fields a change sets to something other than what was there: what a
 * settings.changed entry records (never the values, which may be secrets or personal data).
 */
export function changedFields(
  before: Record<string, unknown> | null | undefined,
  patch: Record<string, unknown>,
): string[] {
  return Object.keys(patch)
    .filter((k) => patch[k] !== undefined)
    .filter((k) => !before || JSON.stringify(before[k] ?? null) !== JSON.stringify(patch[k] ?? null))
    .sort();
}
