/**
 * A request header by name, whatever its case: HTTP header names are case-insensitive, and API
 * Gateway passes them as the client spelled them. Undefined when absent.
 */
export function headerOf(
  event: { headers?: Record<string, string | undefined> | null },
  name: string,
): string | undefined {
  const wanted = name.toLowerCase();
  const entry = Object.entries(event.headers ?? {}).find(([key]) => key.toLowerCase() === wanted);
  return entry?.[1] ?? undefined;
}
