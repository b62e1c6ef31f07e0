/** The run history's time range: datetime-local values in the browser's zone ⇄ ISO instants for the URL and the API. */

/** An ISO instant as a datetime-local value in the browser's zone, to the second (what the input shows). */
export function toLocalInput(iso: string | undefined): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

/**
 * A datetime-local value (browser zone) as an ISO instant; undefined when empty or invalid. The end
 * of a range given to the minute covers that whole minute (`to 10:05` keeps a run at 10:05:30).
 */
export function fromLocalInput(value: string, end: 'start' | 'end' = 'start'): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return undefined;
  const toTheMinute = /T\d{2}:\d{2}$/.test(value);
  return new Date(date.getTime() + (end === 'end' && toTheMinute ? 59_999 : 0)).toISOString();
}
