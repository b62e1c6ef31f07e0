/**
 * JSON a worker sent (a checkpoint), stored as text (core/async/bounded-json.ts), answered back as
 * the value it was. Stored by Chronos from JSON.stringify, so it parses; an item damaged by hand
 * answers null rather than failing the read.
 */
export function storedJsonValue(json: string | undefined): unknown {
  if (json === undefined) return null;
  try {
    return JSON.parse(json);
  } catch {
    return null;
  }
}
