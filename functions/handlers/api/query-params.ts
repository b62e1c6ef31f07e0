/**
 * Reading a listing's query string: every parameter is checked and every problem reported at
 * once, each naming its parameter; unknown parameters are rejected so a typo is not silently
 * ignored (`?stauts=PAUSED` would otherwise list every job).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { type FieldProblem, ValidationError } from '#core/errors';
import { parseIsoInstant } from '#core/schedule/index';
import { DEFAULT_PAGE_SIZE, MAX_CURSOR_LENGTH, MAX_PAGE_SIZE } from './page-query.ts';

/** Reads typed parameters; `done()` throws one ValidationError with every problem found. */
export class QueryReader {
  private readonly query: Record<string, string | undefined>;
  private readonly problems: FieldProblem[] = [];

  constructor(event: APIGatewayProxyEvent, allowed: readonly string[]) {
    this.query = event.queryStringParameters ?? {};
    for (const name of Object.keys(this.query)) {
      if (!allowed.includes(name)) this.problems.push({ field: name, reason: 'is not a parameter of this endpoint' });
    }
  }

  /** One of `values`, or undefined when absent. */
  oneOf<T extends string>(name: string, values: readonly T[]): T | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    if ((values as readonly string[]).includes(value)) return value as T;
    this.problems.push({ field: name, reason: `must be one of ${values.join(', ')}` });
    return undefined;
  }

  /** A string of 1..maxLength characters, or undefined when absent. */
  text(name: string, maxLength: number): string | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    if (value.length >= 1 && value.length <= maxLength) return value;
    this.problems.push({ field: name, reason: `must be 1 to ${maxLength} characters` });
    return undefined;
  }

  /** A zoned ISO-8601 instant inside the stored calendar range (bounds.ts) as epoch ms, or undefined when absent. */
  instant(name: string): number | undefined {
    const value = this.query[name];
    if (value === undefined) return undefined;
    const parsed = parseIsoInstant(value);
    if (parsed.ok) return parsed.at;
    this.problems.push({ field: name, reason: parsed.reason });
    return undefined;
  }

  /** `limit` (default DEFAULT_PAGE_SIZE) and `cursor`. */
  page(): { limit: number; cursor?: string } {
    const raw = this.query.limit;
    let limit = DEFAULT_PAGE_SIZE;
    if (raw !== undefined) {
      limit = Number(raw);
      if (!/^\d+$/.test(raw) || limit < 1 || limit > MAX_PAGE_SIZE) {
        this.problems.push({ field: 'limit', reason: `must be an integer from 1 to ${MAX_PAGE_SIZE}` });
        limit = DEFAULT_PAGE_SIZE;
      }
    }
    // The cursor's content is checked by the listing it belongs to (adapters/dynamodb/cursor.ts); its size here.
    const cursor = this.query.cursor;
    if (cursor !== undefined && cursor.length > MAX_CURSOR_LENGTH) {
      this.problems.push({ field: 'cursor', reason: `must be at most ${MAX_CURSOR_LENGTH} characters` });
      return { limit };
    }
    return cursor ? { limit, cursor } : { limit };
  }

  /** Records a problem found by the caller (e.g. one between two parameters). */
  fail(field: string, reason: string): void {
    this.problems.push({ field, reason });
  }

  /** Throws ValidationError when any parameter was invalid. */
  done(): void {
    if (this.problems.length > 0) throw new ValidationError(this.problems);
  }
}
