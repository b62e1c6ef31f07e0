/**
 * Cron expression validation on top of cron-parser v5, narrowed to what Chronos supports:
 * 5 fields (minute precision) or 6 fields (leading seconds field), or one of cron-parser's `@` macros.
 * Day-of-month and day-of-week both restricted means either may match (classic Vixie cron).
 */
import { CronExpressionParser } from 'cron-parser';

export type CompiledCron =
  | { ok: true; expression: string; everyHour: boolean }
  | { ok: false; reason: string; neverFires?: true };

// Scanners ask about the same few expressions over and over; parsing is the dominant cost of a lookup.
const compiledCache = new Map<string, CompiledCron>();
const COMPILED_CACHE_SIZE = 1000;

/** Validates a cron expression; `everyHour` is true when the hour field matches all 24 hours. */
export function compileCron(expression: string): CompiledCron {
  let compiled = compiledCache.get(expression);
  if (!compiled) {
    compiled = compileUncached(expression);
    if (compiledCache.size >= COMPILED_CACHE_SIZE) compiledCache.clear();
    compiledCache.set(expression, compiled);
  }
  return compiled;
}

function compileUncached(expression: string): CompiledCron {
  const trimmed = expression.trim();
  if (trimmed === '') return { ok: false, reason: 'must not be empty' };
  const fieldCount = trimmed.split(/\s+/).length;
  if (!trimmed.startsWith('@') && fieldCount !== 5 && fieldCount !== 6) {
    return { ok: false, reason: `must have 5 fields (or 6 with seconds first), got ${fieldCount}` };
  }
  // cron-parser replaces H with a random value unless seeded, so the schedule would change between parses.
  if (/(^|[\s,])H(?![a-z])/i.test(trimmed)) {
    return { ok: false, reason: 'hashed (H) values are not supported' };
  }
  try {
    const parsed = CronExpressionParser.parse(trimmed, { tz: 'UTC', currentDate: 0 });
    return { ok: true, expression: trimmed, everyHour: parsed.fields.hour.values.length === 24 };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // cron-parser rejects day-of-month values no listed month has (30 2, 31 4,6) at parse time.
    if (message.includes('Invalid explicit day of month')) {
      return { ok: false, reason: 'never fires: no listed month has that day of month', neverFires: true };
    }
    return { ok: false, reason: `invalid cron expression: ${message}` };
  }
}

/** A cron-parser iterator over wall-clock readings (UTC-encoded) strictly after `afterWallClock`. */
export function wallClockMatches(expression: string, afterWallClock: number): () => number | undefined {
  const iterator = CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: afterWallClock });
  return () => {
    try {
      return iterator.next().getTime();
    } catch {
      // Loop limit (no match within cron-parser's search) or past the end of the Date range: nothing more.
      return undefined;
    }
  };
}
