/**
 * What a command prints: a human view (tables, local times) or, with --json, the API's JSON as is
 * (one document on stdout), and how a failed call becomes a CliError naming the fields the API named.
 */
import type { ApiError, ChronosResult } from '../../client/src/index.ts';
import { CliError } from './cli-error.ts';

export interface Output {
  json: boolean;
  /** A human line (or block); nothing with --json. */
  human(text: string): void;
  /** The answer: JSON with --json, else the human rendering. */
  result(value: unknown, render: () => string): void;
}

export function outputFor(json: boolean, write: (text: string) => void = (t) => process.stdout.write(t)): Output {
  return {
    json,
    human: (text) => {
      if (!json) write(`${text}\n`);
    },
    result: (value, render) => write(`${json ? JSON.stringify(value, null, 2) : render()}\n`),
  };
}

/** The message of an API error: its code and message, then each field the API named with its reason. */
export function describeApiError(error: ApiError): string {
  const head = error.status === 0 ? `cannot reach the API: ${error.message}` : `${error.code}: ${error.message}`;
  const fields = error.details.map((detail) => `  ${detail.field}: ${detail.reason}`);
  const retry = error.retryAfterSeconds === undefined ? [] : [`  retry after ${error.retryAfterSeconds} s`];
  return [head, ...fields, ...retry].join('\n');
}

/** The data of a call, or a CliError (exit 1) describing what the API answered. */
export function dataOf<T>(result: ChronosResult<T>): T {
  if (result.error) {
    const { status, code, message, details } = result.error;
    throw new CliError(describeApiError(result.error), 1, { status, code, message, details: [...details] });
  }
  return result.data;
}
