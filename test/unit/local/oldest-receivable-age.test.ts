/**
 * The local CloudWatch's ApproximateAgeOfOldestMessage, computed from fauxqs's queue state: only
 * messages a consumer could receive now count, a delayed one from the end of its delay.
 */
import { describe, expect, it } from 'vitest';
import { type InspectedMessage, oldestReceivableAgeSeconds } from '#local/emulators/cloudwatch-metrics';

const NOW = 1_000_000_000;
const sent = (secondsAgo: number, extra: Partial<InspectedMessage> = {}): InspectedMessage => ({
  sentTimestamp: NOW - secondsAgo * 1000,
  approximateReceiveCount: 0,
  ...extra,
});
const queue = (messages: Partial<Parameters<typeof oldestReceivableAgeSeconds>[0]['messages']>) => ({
  messages: { ready: [], delayed: [], inflight: [], ...messages },
});

describe('oldestReceivableAgeSeconds', () => {
  it('is 0 for an empty queue', () => {
    expect(oldestReceivableAgeSeconds(queue({}), NOW)).toBe(0);
  });

  it('is the age of the oldest ready message, in whole seconds', () => {
    expect(oldestReceivableAgeSeconds(queue({ ready: [sent(3.9), sent(12.5), sent(1)] }), NOW)).toBe(12);
  });

  it('leaves out messages still delayed, and counts a released one from the end of its delay', () => {
    const stillDelayed = sent(30, { delayUntil: NOW + 5_000 });
    expect(oldestReceivableAgeSeconds(queue({ delayed: [stillDelayed] }), NOW)).toBe(0);
    // Sent 30 s ago with a 20 s delay: released 10 s ago, and fauxqs has not moved it yet.
    const released = sent(30, { delayUntil: NOW - 10_000 });
    expect(oldestReceivableAgeSeconds(queue({ delayed: [released, stillDelayed] }), NOW)).toBe(10);
    expect(oldestReceivableAgeSeconds(queue({ ready: [released] }), NOW)).toBe(10);
  });

  it('leaves out in-flight messages until their visibility timeout ends', () => {
    const message = sent(60, { approximateReceiveCount: 1 });
    expect(oldestReceivableAgeSeconds(queue({ inflight: [{ message, visibilityDeadline: NOW + 1 }] }), NOW)).toBe(0);
    expect(oldestReceivableAgeSeconds(queue({ inflight: [{ message, visibilityDeadline: NOW }] }), NOW)).toBe(60);
  });

  it('leaves out messages received three times or more, except in a dead-letter queue', () => {
    const poison = sent(90, { approximateReceiveCount: 3 });
    const ready = queue({ ready: [poison, sent(20, { approximateReceiveCount: 2 })] });
    expect(oldestReceivableAgeSeconds(ready, NOW)).toBe(20);
    expect(oldestReceivableAgeSeconds(ready, NOW, { deadLetterQueue: true })).toBe(90);
  });
});
