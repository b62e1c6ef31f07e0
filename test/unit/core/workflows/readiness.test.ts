import { describe, expect, it } from 'vitest';
import type { TaskStatus } from '#core/workflows/model';
import { readiness } from '#core/workflows/readiness';
import { topologicalOrder } from '#core/workflows/topological-order';
import { fanOutFanIn, NIGHTLY_ETL, node, play, states } from './dags.ts';

const succeedAll = (): TaskStatus => 'SUCCEEDED';
const failing =
  (...keys: string[]) =>
  (key: string): TaskStatus =>
    keys.includes(key) ? 'FAILED' : 'SUCCEEDED';

describe('readiness of a workflow run', () => {
  it('starts every task without dependencies at once, and nothing else', () => {
    const graph = [node('a'), node('b'), node('c', ['a', 'b'])];
    expect(readiness(graph, new Map())).toEqual({ start: ['a', 'b'], skip: [], cancel: [] });
  });

  it('runs the diamond in dependency order: load only after both clean and enrich ended', () => {
    const played = play(NIGHTLY_ETL, succeedAll);
    expect(played.started).toEqual(['extract', 'clean', 'enrich', 'load']);
    expect(played.dependenciesAtStart.get('load')).toEqual(['SUCCEEDED', 'SUCCEEDED']);
    expect(
      readiness(NIGHTLY_ETL, states({ extract: 'SUCCEEDED', clean: 'SUCCEEDED', enrich: 'RUNNING' })).start,
    ).toEqual([]);
  });

  it('skips page-oncall (any_failed) when nothing failed', () => {
    const played = play(NIGHTLY_ETL, succeedAll);
    expect(played.final.get('page-oncall')).toBe('SKIPPED');
    expect(played.skippedReasons.get('page-oncall')).toBe('no dependency failed; rule any_failed does not hold');
  });

  it('skips load behind a failed enrich and calls page-oncall, in one step', () => {
    const next = readiness(
      NIGHTLY_ETL,
      states({ extract: 'SUCCEEDED', clean: 'SUCCEEDED', enrich: 'FAILED', load: 'PENDING' }),
    );
    expect(next).toEqual({
      start: ['page-oncall'],
      skip: [{ key: 'load', skippedReason: 'dependency enrich ended FAILED; rule all_succeeded can no longer hold' }],
      cancel: [],
    });
  });

  it('skips an all_succeeded task as soon as one dependency fails, without waiting for the others', () => {
    const next = readiness(NIGHTLY_ETL, states({ extract: 'SUCCEEDED', clean: 'RUNNING', enrich: 'TIMED_OUT' }));
    expect(next.skip.map((s) => s.key)).toEqual(['load']);
    expect(next.start).toEqual(['page-oncall']);
  });

  it('propagates a skip transitively: all_succeeded children skip, and name the skipped parent', () => {
    const graph = [node('a'), node('b', ['a']), node('c', ['b']), node('d', ['c'])];
    const next = readiness(graph, states({ a: 'DEAD_LETTERED' }));
    expect(next.skip).toEqual([
      { key: 'b', skippedReason: 'dependency a ended DEAD_LETTERED; rule all_succeeded can no longer hold' },
      {
        key: 'c',
        skippedReason: 'dependency b was SKIPPED after a failure upstream; rule all_succeeded can no longer hold',
      },
      {
        key: 'd',
        skippedReason: 'dependency c was SKIPPED after a failure upstream; rule all_succeeded can no longer hold',
      },
    ]);
  });

  it('runs an all_done child of a skipped task', () => {
    const graph = [node('a'), node('b', ['a']), node('cleanup', ['b'], 'all_done')];
    expect(readiness(graph, states({ a: 'FAILED' }))).toEqual({
      start: ['cleanup'],
      skip: [{ key: 'b', skippedReason: 'dependency a ended FAILED; rule all_succeeded can no longer hold' }],
      cancel: [],
    });
  });

  it('waits with all_done and any_failed until every dependency ended', () => {
    const graph = [node('a'), node('b'), node('done', ['a', 'b'], 'all_done'), node('alarm', ['a', 'b'], 'any_failed')];
    expect(readiness(graph, states({ a: 'FAILED', b: 'RUNNING' }))).toEqual({ start: [], skip: [], cancel: [] });
    expect(readiness(graph, states({ a: 'FAILED', b: 'SUCCEEDED' })).start).toEqual(['done', 'alarm']);
  });

  it('counts a skip after a failure as a failure for any_failed, and a skip without one as none', () => {
    const graph = [
      node('a'),
      node('watch', ['a'], 'any_failed'),
      node('after-watch', ['watch']),
      node('alarm', ['after-watch'], 'any_failed'),
    ];
    // a succeeded: watch is skipped (nothing failed), which carries no failure on to alarm.
    const clean = play(graph, succeedAll);
    expect(clean.final.get('after-watch')).toBe('SKIPPED');
    expect(clean.final.get('alarm')).toBe('SKIPPED');
    expect(clean.skippedReasons.get('after-watch')).toBe(
      'dependency watch was SKIPPED; rule all_succeeded can no longer hold',
    );
  });

  it('waits for the other dependencies before skipping behind a clean skip, then counts a later failure', () => {
    const graph = [
      node('a'),
      node('b'),
      node('watch', ['a'], 'any_failed'),
      node('join', ['watch', 'b']),
      node('alarm', ['join'], 'any_failed'),
    ];
    // watch is skipped cleanly while b still runs: join waits, since b may still fail.
    expect(readiness(graph, states({ a: 'SUCCEEDED', b: 'RUNNING' })).skip.map((s) => s.key)).toEqual(['watch']);
    expect(readiness(graph, states({ a: 'SUCCEEDED', watch: 'SKIPPED', b: 'RUNNING' }))).toEqual({
      start: [],
      skip: [],
      cancel: [],
    });
    // b fails: join is skipped after a failure, so alarm runs.
    expect(readiness(graph, states({ a: 'SUCCEEDED', watch: 'SKIPPED', b: 'FAILED' })).start).toEqual(['alarm']);
  });

  it('cancels every task behind a cancelled one, whatever its rule', () => {
    const graph = [node('a'), node('b', ['a'], 'all_done'), node('c', ['b'], 'any_failed')];
    expect(readiness(graph, states({ a: 'CANCELLED' }))).toEqual({ start: [], skip: [], cancel: ['b', 'c'] });
  });

  it('starts the fan-in task of a 50-way fan-out exactly once, after all 50 ended', () => {
    const graph = fanOutFanIn(50);
    const played = play(graph, succeedAll, (inFlight) => inFlight.length - 1);
    expect(played.started.filter((key) => key === 'merge')).toHaveLength(1);
    expect(played.started.at(-1)).toBe('merge');
    expect(played.dependenciesAtStart.get('merge')).toEqual(Array(50).fill('SUCCEEDED'));
    expect(readiness(graph, states({ split: 'SUCCEEDED' })).start).toHaveLength(50);
  });

  it('skips a 50-way fan-in after one failed worker, while an all_done fan-in still waits for the rest', () => {
    const strict = fanOutFanIn(50);
    const lenient = fanOutFanIn(50, 'all_done');
    const during = { split: 'SUCCEEDED' as const, 'worker-7': 'FAILED' as const };
    expect(readiness(strict, states(during)).skip.map((s) => s.key)).toEqual(['merge']);
    expect(readiness(lenient, states(during)).skip).toEqual([]);
    const played = play(lenient, failing('worker-7'));
    expect(played.final.get('merge')).toBe('SUCCEEDED');
  });

  it('leaves ended and in-flight tasks alone', () => {
    const next = readiness(NIGHTLY_ETL, states({ extract: 'RUNNING' }));
    expect(next).toEqual({ start: [], skip: [], cancel: [] });
    const done = readiness(
      NIGHTLY_ETL,
      states({
        extract: 'SUCCEEDED',
        clean: 'SUCCEEDED',
        enrich: 'SUCCEEDED',
        load: 'SUCCEEDED',
        'page-oncall': 'SKIPPED',
      }),
    );
    expect(done).toEqual({ start: [], skip: [], cancel: [] });
  });

  it('never settles a cycle (validation refuses them) but still answers', () => {
    const graph = [node('a', ['b']), node('b', ['a'])];
    expect(readiness(graph, new Map())).toEqual({ start: [], skip: [], cancel: [] });
  });
});

describe('topological order', () => {
  it('lists each task after its dependencies, taking the earliest-defined ready task next', () => {
    expect(topologicalOrder(NIGHTLY_ETL)).toEqual(['extract', 'clean', 'enrich', 'load', 'page-oncall']);
    const graph = [node('late', ['b']), node('b', ['a']), node('a'), node('free')];
    expect(topologicalOrder(graph)).toEqual(['a', 'b', 'late', 'free']);
  });

  it('is undefined for a cyclic graph', () => {
    expect(topologicalOrder([node('r'), node('a', ['r', 'b']), node('b', ['a'])])).toBeUndefined();
    expect(topologicalOrder([node('a', ['a'])])).toBeUndefined();
  });
});
