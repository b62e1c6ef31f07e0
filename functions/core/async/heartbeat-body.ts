/**
 * The body of `POST /v1/callbacks/{token}/heartbeat` (schemas/callback-heartbeat.json):
 * `{ progress?: 0–100, message?: ≤ 1 KB, checkpoint?: any JSON ≤ 16 KB }`. Every field is optional:
 * an empty body (or `{}`) only proves the worker is alive.
 */
import type { FieldProblem } from '../errors.ts';
import { boundedJson } from './bounded-json.ts';
import { boundedText, isPlainObject, unknownFields } from './callback-fields.ts';

export const MAX_PROGRESS_MESSAGE_BYTES = 1024;
export const MAX_CHECKPOINT_BYTES = 16 * 1024;

export interface Heartbeat {
  /** Percent done, 0–100 (fractions allowed). */
  progress?: number;
  message?: string;
  /** The checkpoint serialized (bounded-json.ts): stored as text, handed back to a retried worker. */
  checkpointJson?: string;
}

export type ParsedHeartbeat = { ok: true; heartbeat: Heartbeat } | { ok: false; problems: FieldProblem[] };

const FIELDS = ['progress', 'message', 'checkpoint'] as const;

/** Validates a heartbeat body (any value; undefined = no body); every problem names its field. Never throws. */
export function parseHeartbeat(body: unknown): ParsedHeartbeat {
  if (body === undefined || body === null) return { ok: true, heartbeat: {} };
  if (!isPlainObject(body)) return { ok: false, problems: [{ field: 'body', reason: 'must be a JSON object' }] };
  const problems = unknownFields(body, FIELDS);
  const heartbeat: Heartbeat = {};
  if (body.progress !== undefined) {
    const progress = body.progress;
    if (typeof progress === 'number' && Number.isFinite(progress) && progress >= 0 && progress <= 100)
      heartbeat.progress = progress;
    else problems.push({ field: 'progress', reason: 'must be a number from 0 to 100' });
  }
  if (body.message !== undefined) {
    const message = boundedText('message', body.message, MAX_PROGRESS_MESSAGE_BYTES, problems);
    if (message !== undefined) heartbeat.message = message;
  }
  if (body.checkpoint !== undefined) {
    const checkpoint = boundedJson(body.checkpoint, MAX_CHECKPOINT_BYTES);
    if (checkpoint.ok) heartbeat.checkpointJson = checkpoint.json;
    else problems.push({ field: 'checkpoint', reason: checkpoint.reason });
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, heartbeat };
}
