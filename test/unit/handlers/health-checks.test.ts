import { describe, expect, it } from 'vitest';
import { type Probe, runChecks } from '#handlers/api/health-checks';

const ok: Probe = async () => 'ok';
const never: Probe = (signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));

describe('runChecks', () => {
  it('passes when every probe answers ok, keeping the given order', async () => {
    expect(await runChecks({ b: ok, a: ok }, 1_000)).toEqual({ checks: { b: 'ok', a: 'ok' }, failing: [] });
  });

  it('names a probe that throws as unreachable, and reports its error', async () => {
    const failures: Array<[string, unknown]> = [];
    const report = await runChecks(
      {
        jobsTable: ok,
        dispatchQueue: async () => {
          throw new Error('AccessDenied');
        },
      },
      1_000,
      (name, error) => failures.push([name, error]),
    );

    expect(report).toEqual({ checks: { jobsTable: 'ok', dispatchQueue: 'unreachable' }, failing: ['dispatchQueue'] });
    expect(failures).toEqual([['dispatchQueue', new Error('AccessDenied')]]);
  });

  it('passes a probe’s own verdict through (a stale heartbeat answers, but fails)', async () => {
    const report = await runChecks({ scannerHeartbeat: async () => 'stale', jobsTable: ok }, 1_000);
    expect(report.failing).toEqual(['scannerHeartbeat']);
  });

  it('cuts a hung probe off at the timeout, aborts it and still answers for the others', async () => {
    let aborted = false;
    const started = Date.now();
    const failures: string[] = [];
    const report = await runChecks(
      {
        runsTable: (signal) => {
          signal.addEventListener('abort', () => {
            aborted = true;
          });
          return never(signal);
        },
        jobsTable: ok,
      },
      50,
      (name) => failures.push(name),
    );

    expect(report).toEqual({ checks: { runsTable: 'timeout', jobsTable: 'ok' }, failing: ['runsTable'] });
    expect(aborted).toBe(true);
    expect(Date.now() - started).toBeLessThan(1_000);
    // Reported once, as a timeout, not again when the aborted request rejects.
    expect(failures).toEqual(['runsTable']);
  });

  it('runs the probes in parallel: three slow ones take about one probe’s time', async () => {
    const slow: Probe = () => new Promise((resolve) => setTimeout(() => resolve('ok'), 200));
    const started = Date.now();
    const report = await runChecks({ a: slow, b: slow, c: slow }, 1_000);
    expect(report.failing).toEqual([]);
    expect(Date.now() - started).toBeLessThan(550);
  });
});
