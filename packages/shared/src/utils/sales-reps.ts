// SPEC.md §5: "Sales reps are listed with photos first, then without photos, each group sorted by first name."

/** The fields the ordering reads; any sales rep shape (basic or extended) has them. */
export type SalesRepOrderFields = {
  first_name?: string | null;
  photo_url?: string | null;
};

// Case-insensitive but accent-aware, in the reader's locale; names that compare equal keep their order.
const collator = new Intl.Collator(undefined, { sensitivity: 'accent' });

/** A photo is a non-blank photo_url; null, missing, '' and whitespace mean no photo. */
export function hasPhoto(rep: SalesRepOrderFields): boolean {
  return typeof rep.photo_url === 'string' && rep.photo_url.trim() !== '';
}

/** Returns a new array: reps with photos first, then without, each group by first name (stable). */
export function sortSalesReps<T extends SalesRepOrderFields>(reps: readonly T[]): T[] {
  return reps.toSorted(
    (a, b) =>
      Number(hasPhoto(b)) - Number(hasPhoto(a)) || collator.compare(a.first_name ?? '', b.first_name ?? ''),
  );
}
