/**
 * Pagination: the listings answer `{ items, cursor }`, `cursor` null on the last page. `pages`
 * walks them for `for await`, asking for the next page only when the previous one is used up.
 */
import { ChronosError, type ChronosResult } from './errors.ts';

export interface Page<T> {
  items: T[];
  cursor: string | null;
}

/** Every item of every page from `cursor` on; a failed page throws ChronosError. */
export async function* pages<T>(
  fetchPage: (cursor: string | undefined) => Promise<ChronosResult<Page<T>>>,
  cursor?: string,
): AsyncGenerator<T, void, undefined> {
  let next = cursor;
  do {
    const result = await fetchPage(next);
    if (result.error) throw new ChronosError(result.error);
    yield* result.data.items;
    next = result.data.cursor ?? undefined;
  } while (next !== undefined);
}
