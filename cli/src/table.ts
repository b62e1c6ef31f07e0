/**
 * Aligned text tables for humans: a header row, columns padded to their widest cell (by code
 * points, so `wörld` lines up), two spaces between columns, the last column not padded.
 */
export type Row = readonly (string | number | null | undefined)[];

const cellText = (value: Row[number]) => (value === null || value === undefined || value === '' ? '-' : String(value));
const width = (text: string) => [...text].length;

/** The table as lines of text (no trailing newline). */
export function formatTable(header: readonly string[], rows: readonly Row[]): string {
  const cells = [header.map(String), ...rows.map((row) => header.map((_, i) => cellText(row[i])))];
  const widths = header.map((_, i) => Math.max(...cells.map((row) => width(row[i] ?? ''))));
  return cells
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - width(cell))))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `label  value` lines, labels aligned (a single record, e.g. `jobs get`). */
export function formatFields(fields: readonly (readonly [string, Row[number]])[]): string {
  const labelWidth = Math.max(...fields.map(([label]) => width(label)));
  return fields.map(([label, value]) => `${label.padEnd(labelWidth)}  ${cellText(value)}`).join('\n');
}
