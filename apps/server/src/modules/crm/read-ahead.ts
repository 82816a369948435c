/**
 * Yields what `source` yields while its next item is already being read: the vendor's next page
 * comes over the network while the sync stores this one, so a sync costs about the longer of the
 * two instead of their sum (issue 43: the HubSpot list sync spent as long waiting on its database
 * as on HubSpot, one after the other). One item ahead only: memory stays one page.
 */
export async function* readAhead<T>(source: AsyncIterable<T>): AsyncGenerator<T> {
  const it = source[Symbol.asyncIterator]();
  let next = it.next();
  // Awaited below; this keeps a read that fails while a page is being stored from being unhandled.
  next.catch(() => {});
  let finished = false;
  try {
    for (;;) {
      const r = await next;
      if (r.done) {
        finished = true;
        return;
      }
      next = it.next();
      next.catch(() => {});
      yield r.value;
    }
  } catch (err) {
    finished = true;
    throw err;
  } finally {
    // The consumer stopped early (or failed storing): close the source once its read settles.
    if (!finished)
      void next
        .then(
          () => it.return?.(),
          () => undefined,
        )
        .catch(() => undefined);
  }
}

/**
 * Pages gathered until they hold at least `size` items (the last batch may hold fewer), each batch
 * with its pages: the sync stores a batch in one transaction, so a vendor's small pages (HubSpot's
 * searches give 200, its memberships 250) do not each cost a transaction, a cursor write and a
 * statement per table.
 */
export async function* batches<P extends { items: unknown[] }>(
  pages: AsyncIterable<P>,
  size: number,
): AsyncGenerator<P[]> {
  let batch: P[] = [];
  let count = 0;
  for await (const page of pages) {
    batch.push(page);
    count += page.items.length;
    if (count >= size) {
      yield batch;
      batch = [];
      count = 0;
    }
  }
  if (batch.length) yield batch;
}
