/**
 * A run its tenant's in-flight cap holds back is sent back to the queue it came from (issue #22):
 * the executor reads the message's lane with the run's keys and sends it back with it, so a
 * throttled high run stays high and a low one never jumps the queue.
 */
import type { SQSRecord } from 'aws-lambda';
import { describe, expect, it, vi } from 'vitest';
import { PRIORITIES } from '#core/priority';
import { parseDispatchMessage } from '#handlers/dispatch-message';
import { sendBackLater } from '#handlers/tenant-run-cap';
import { RecordingDispatcher } from '../../support/fakes/fakes.ts';

const dispatcher = vi.hoisted(() => ({ current: undefined as unknown as RecordingDispatcher }));
vi.mock('#handlers/wiring', () => ({ runDispatcher: () => dispatcher.current, quotasOf: async () => ({}) }));

describe('a throttled run sent back', () => {
  it('keeps its lane', async () => {
    for (const priority of PRIORITIES) {
      dispatcher.current = new RecordingDispatcher();
      const body = { tenantId: 't', jobId: 'J', runId: 'J_1795510800000_1', scheduledFor: 1795510800000, attempt: 1 };
      const record = { messageId: 'm', body: JSON.stringify({ ...body, priority }), attributes: {} } as SQSRecord;

      await sendBackLater(parseDispatchMessage(record));

      expect(dispatcher.current.sent.map(({ message }) => message)).toEqual([{ ...body, priority, deferrals: 1 }]);
    }
  });
});
