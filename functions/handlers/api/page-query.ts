/** Page sizes of every listing; `limit` and `cursor` are read by QueryReader.page (query-params.ts). */
export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;
/** A cursor longer than this is refused before anything decodes it. */
export { MAX_CURSOR_LENGTH } from '#adapters/dynamodb/cursor';
