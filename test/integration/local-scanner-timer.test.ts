import type { ScheduledEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { type ScannerHandler, startScannerTimer } from '#local/scanner-timer';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('startScannerTimer', () => {
  it('never runs two scans at once, even when a scan outlasts the interval', async () => {
    let running = 0;
    let maxRunning = 0;
    let scans = 0;
    const handler: ScannerHandler = async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await sleep(60);
      running--;
      scans++;
      return { materialized: 0 };
    };
    const timer = startScannerTimer({ handler, intervalMs: 10 });
    const manual = [timer.runNow(), timer.runNow()];
    await expect.poll(() => scans, { timeout: 3000 }).toBeGreaterThanOrEqual(4);
    await Promise.all(manual);
    await timer.stop();
    expect(maxRunning).toBe(1);
  });

  it('sends an EventBridge scheduled event and returns the result to runNow()', async () => {
    const events: ScheduledEvent[] = [];
    const timer = startScannerTimer({
      handler: async (event) => {
        events.push(event);
        return { materialized: 3 };
      },
      intervalMs: 0,
    });
    await expect(timer.runNow()).resolves.toEqual({ materialized: 3 });
    await timer.stop();
    expect(events[0]).toMatchObject({
      version: '0',
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      account: '000000000000',
      region: 'us-east-1',
      detail: {},
    });
    expect(events[0]?.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(events[0]?.resources[0]).toMatch(/^arn:aws:events:us-east-1:000000000000:rule\//);
  });

  it('keeps the schedule going after a failed scan and logs the failure', async () => {
    let calls = 0;
    const logged: string[] = [];
    const timer = startScannerTimer({
      handler: async () => {
        calls++;
        if (calls === 1) throw new Error('table busy');
        return { materialized: 0 };
      },
      intervalMs: 10,
      log: (message) => logged.push(message),
    });
    await expect.poll(() => calls, { timeout: 3000 }).toBeGreaterThanOrEqual(3);
    await timer.stop();
    expect(logged).toHaveLength(1);
  });

  it('invokes nothing more once stopped', async () => {
    let calls = 0;
    const timer = startScannerTimer({
      handler: async () => {
        calls++;
        return {};
      },
      intervalMs: 10,
    });
    await expect.poll(() => calls, { timeout: 3000 }).toBeGreaterThanOrEqual(1);
    await timer.stop();
    const afterStop = calls;
    await sleep(100);
    expect(calls).toBe(afterStop);
  });
});
