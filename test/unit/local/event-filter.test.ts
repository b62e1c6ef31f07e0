import { describe, expect, it } from 'vitest';
import { COMPLETION_FILTER_PATTERNS } from '#handlers/completion-filter';
import { matchesAnyPattern, matchesPattern } from '#local/event-filter';

const modify = (oldStatus: string | undefined, newStatus: string) => ({
  eventName: 'MODIFY',
  dynamodb: {
    NewImage: { status: { S: newStatus } },
    ...(oldStatus === undefined ? {} : { OldImage: { status: { S: oldStatus } } }),
  },
});

describe('matchesAnyPattern with the completion filter', () => {
  it('passes a run that moves from RUNNING into a terminal state', () => {
    expect(matchesAnyPattern(modify('RUNNING', 'SUCCEEDED'), COMPLETION_FILTER_PATTERNS)).toBe(true);
    expect(matchesAnyPattern(modify('QUEUED', 'DEAD_LETTERED'), COMPLETION_FILTER_PATTERNS)).toBe(true);
  });

  it('passes a run leaving QUEUED, whatever for, and a run put back into it', () => {
    expect(matchesAnyPattern(modify('QUEUED', 'RUNNING'), COMPLETION_FILTER_PATTERNS)).toBe(true);
    expect(matchesAnyPattern(modify('RUNNING', 'QUEUED'), COMPLETION_FILTER_PATTERNS)).toBe(true);
    const removed = { eventName: 'REMOVE', dynamodb: { OldImage: { status: { S: 'QUEUED' } } } };
    expect(matchesAnyPattern(removed, COMPLETION_FILTER_PATTERNS)).toBe(true);
  });

  it('passes a run created QUEUED', () => {
    const insert = { eventName: 'INSERT', dynamodb: { NewImage: { status: { S: 'QUEUED' } } } };
    expect(matchesAnyPattern(insert, COMPLETION_FILTER_PATTERNS)).toBe(true);
  });

  it('drops a change of a running run that stays running (lease renewal, takeover)', () => {
    expect(matchesAnyPattern(modify('RUNNING', 'RUNNING'), COMPLETION_FILTER_PATTERNS)).toBe(false);
  });

  it('drops a rewrite of an already terminal run', () => {
    expect(matchesAnyPattern(modify('SUCCEEDED', 'SUCCEEDED'), COMPLETION_FILTER_PATTERNS)).toBe(false);
  });

  it('drops inserts and removes of runs that are not queued', () => {
    const insert = { eventName: 'INSERT', dynamodb: { NewImage: { status: { S: 'FAILED' } } } };
    expect(matchesAnyPattern(insert, COMPLETION_FILTER_PATTERNS)).toBe(false);
    expect(matchesAnyPattern({ ...modify('RUNNING', 'FAILED'), eventName: 'REMOVE' }, COMPLETION_FILTER_PATTERNS)).toBe(
      false,
    );
  });

  it('drops a MODIFY whose old image is missing, since anything-but needs the field', () => {
    expect(matchesAnyPattern(modify(undefined, 'FAILED'), COMPLETION_FILTER_PATTERNS)).toBe(false);
  });
});

describe('matchesAnyPattern', () => {
  it('lets everything through when there are no patterns', () => {
    expect(matchesAnyPattern({ a: 1 }, [])).toBe(true);
  });

  it('passes a record that matches any one of several patterns', () => {
    const patterns = [{ kind: ['a'] }, { kind: ['b'] }];
    expect(matchesAnyPattern({ kind: 'b' }, patterns)).toBe(true);
    expect(matchesAnyPattern({ kind: 'c' }, patterns)).toBe(false);
  });
});

describe('matchesPattern', () => {
  it('compares literals of every JSON scalar type exactly', () => {
    expect(matchesPattern({ n: 5, b: false, z: null }, { n: [5], b: [false], z: [null] })).toBe(true);
    expect(matchesPattern({ n: '5' }, { n: [5] })).toBe(false);
  });

  it('matches an array field when any element matches', () => {
    expect(matchesPattern({ tags: ['x', 'y'] }, { tags: ['y'] })).toBe(true);
    expect(matchesPattern({ tags: ['x'] }, { tags: ['y'] })).toBe(false);
  });

  it('requires nested fields to be present and matching', () => {
    const pattern = { detail: { state: ['on'] } };
    expect(matchesPattern({ detail: { state: 'on' } }, pattern)).toBe(true);
    expect(matchesPattern({ detail: {} }, pattern)).toBe(false);
    expect(matchesPattern({}, pattern)).toBe(false);
  });

  it('supports prefix, suffix and equals-ignore-case', () => {
    expect(matchesPattern({ s: 'chronos-run' }, { s: [{ prefix: 'chronos' }] })).toBe(true);
    expect(matchesPattern({ s: 'chronos-run' }, { s: [{ suffix: 'run' }] })).toBe(true);
    expect(matchesPattern({ s: 'ChRoNoS' }, { s: [{ 'equals-ignore-case': 'chronos' }] })).toBe(true);
    expect(matchesPattern({ s: 'job' }, { s: [{ prefix: 'chronos' }] })).toBe(false);
  });

  it('supports anything-but with a list, a scalar and a prefix', () => {
    expect(matchesPattern({ s: 'a' }, { s: [{ 'anything-but': ['a', 'b'] }] })).toBe(false);
    expect(matchesPattern({ s: 'c' }, { s: [{ 'anything-but': ['a', 'b'] }] })).toBe(true);
    expect(matchesPattern({ s: 'a' }, { s: [{ 'anything-but': 'a' }] })).toBe(false);
    expect(matchesPattern({ s: 'tmp-1' }, { s: [{ 'anything-but': { prefix: 'tmp' } }] })).toBe(false);
    expect(matchesPattern({ s: 'job-1' }, { s: [{ 'anything-but': { prefix: 'tmp' } }] })).toBe(true);
  });

  it('supports exists for present and absent fields', () => {
    expect(matchesPattern({ a: 1 }, { a: [{ exists: true }] })).toBe(true);
    expect(matchesPattern({}, { a: [{ exists: true }] })).toBe(false);
    expect(matchesPattern({}, { a: [{ exists: false }] })).toBe(true);
    expect(matchesPattern({ a: 1 }, { a: [{ exists: false }] })).toBe(false);
  });

  it('supports numeric ranges', () => {
    const pattern = { n: [{ numeric: ['>', 0, '<=', 10] }] };
    expect(matchesPattern({ n: 10 }, pattern)).toBe(true);
    expect(matchesPattern({ n: 0 }, pattern)).toBe(false);
    expect(matchesPattern({ n: '5' }, pattern)).toBe(false);
  });

  it('rejects operators it does not implement rather than guessing', () => {
    expect(() => matchesPattern({ a: 'x' }, { a: [{ wildcard: 'x*' }] })).toThrow(/Unsupported/);
    expect(() => matchesPattern({ a: 'x' }, { $or: [{ a: ['x'] }] })).toThrow(/Unsupported/);
  });
});
