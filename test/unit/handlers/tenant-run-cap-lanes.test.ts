/**
 * A run its tenant's in-flight cap holds back is sent back to the queue it came from (issue #22):
 * the executor reads the message's lane with the run's keys and sends it back with it, so a
 * throttled high run stays high and a low one never jumps the queue. And its deferral count
 * survives the trip, so a tenant far over its cap is looked at less and less often.
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

  it('counts its deferrals across sends, so its delay grows (1 s, 2, 4… up to 30 s) instead of staying at 1 s', async () => {
    dispatcher.current = new RecordingDispatcher();
    const body = { tenantId: 't', jobId: 'J', runId: 'J_1795510800000_1', scheduledFor: 1795510800000, attempt: 1 };
    let record = { messageId: 'm', body: JSON.stringify(body), attributes: {} } as SQSRecord;
    const delays: number[] = [];
    for (let send = 1; send <= 7; send++) {
      const before = Date.now();
      await sendBackLater(parseDispatchMessage(record));
      const sent = dispatcher.current.sent.at(-1);
      if (!sent) throw new Error('nothing sent back');
      expect(sent.message).toMatchObject({ deferrals: send });
      delays.push(Math.round((sent.releaseAt - before) / 1000));
      record = { ...record, body: JSON.stringify(sent.message) };
    }
    // Each delay is its base (2^(n-1), at most 30) plus up to a second of jitter.
    const bases = [1, 2, 4, 8, 16, 30, 30];
    delays.forEach((delay, i) => {
      expect(delay).toBeGreaterThanOrEqual(bases[i] as number);
      expect(delay).toBeLessThanOrEqual((bases[i] as number) + 1);
    });
  });

  it('reads a deferral count out of range as none, never refusing the run', () => {
    const body = { tenantId: 't', jobId: 'J', runId: 'J_1795510800000_1', scheduledFor: 1795510800000, attempt: 1 };
    for (const deferrals of [0, -1, 1.5, 'x', 10_000_000]) {
      const record = { messageId: 'm', body: JSON.stringify({ ...body, deferrals }), attributes: {} } as SQSRecord;
      expect(parseDispatchMessage(record)).toEqual(body);
    }
  });
});
