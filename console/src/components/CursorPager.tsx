/**
 * First page / Next page over a listing the API pages by cursor: "First page" while away from it,
 * "Next page" while the API gave a cursor for more.
 */
export function CursorPager({
  label,
  cursor,
  nextCursor,
  onGo,
}: {
  /** The nav's accessible name, e.g. "Run pages". */
  label: string;
  /** The cursor of the page shown (undefined on the first). */
  cursor: string | undefined;
  /** The API's cursor for the page after this one, if any. */
  nextCursor: string | null | undefined;
  onGo: (cursor: string | undefined) => void;
}) {
  return (
    <nav aria-label={label} className="mt-3 flex gap-2">
      {cursor && (
        <button
          type="button"
          className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100"
          onClick={() => onGo(undefined)}
        >
          First page
        </button>
      )}
      {nextCursor && (
        <button
          type="button"
          className="rounded border border-slate-300 px-3 py-1 text-sm hover:bg-slate-100"
          onClick={() => onGo(nextCursor)}
        >
          Next page
        </button>
      )}
    </nav>
  );
}
