/** Parsers for option values: a value that cannot be read is a usage error (exit 2) before any call. */
import { InvalidArgumentError } from 'commander';

/** A whole number, as written (`30`, not `30s` or `3e1`). */
export function integer(value: string): number {
  if (!/^-?\d{1,15}$/.test(value.trim())) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

/** A decimal number. */
export function decimal(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** A duration in seconds: `90`, `90s`, `5m`, `1h30m`, `2d`. */
export function duration(value: string): number {
  const text = value.trim();
  if (/^\d{1,12}$/.test(text)) return Number(text);
  const parts = [...text.matchAll(/(\d{1,12})([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== text) {
    throw new InvalidArgumentError('must be a duration such as 90, 90s, 5m, 1h30m or 2d');
  }
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * (UNIT_SECONDS[unit ?? 's'] ?? 1), 0);
}

/** `Name: value` (or `Name=value`) for a header. */
export function header(value: string, previous: Record<string, string> = {}): Record<string, string> {
  const match = /^([^:=]+)[:=](.*)$/.exec(value);
  if (!match?.[1]?.trim()) throw new InvalidArgumentError('must be "Name: value"');
  return { ...previous, [match[1].trim()]: (match[2] ?? '').trim() };
}

/** A comma-separated list of whole numbers (`404,409`). */
export function integers(value: string): number[] {
  return value.split(',').map((part) => integer(part));
}

/** Seconds as a duration humans read: `30s`, `5m`, `1h30m`, `2d`. */
export function durationText(seconds: number): string {
  let rest = seconds;
  const out: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
  ] as const) {
    if (rest >= size) {
      out.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0 || out.length === 0) out.push(`${rest}s`);
  return out.join('');
}
