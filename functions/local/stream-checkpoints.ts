/**
 * The runs-stream checkpoints of a local Chronos that keeps its data (`npm start -- --data`): one
 * small JSON file next to DynamoDB Local's, rewritten whole (through a temporary file and a
 * rename, so a crash leaves the old or the new one) each time a batch has been handled.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { StreamCheckpoints } from './stream-poller.ts';

export function fileCheckpoints(path: string): StreamCheckpoints {
  let positions: Record<string, string> = {};
  try {
    positions = JSON.parse(readFileSync(path, 'utf8')) as Record<string, string>;
  } catch {
    // None yet (a first start), or unreadable: read the stream from its oldest record, as a new mapping does.
  }
  return {
    get: (shardId) => positions[shardId],
    set: (shardId, sequenceNumber) => {
      positions = { ...positions, [shardId]: sequenceNumber };
      writeFileSync(`${path}.tmp`, JSON.stringify(positions));
      renameSync(`${path}.tmp`, path);
    },
  };
}
