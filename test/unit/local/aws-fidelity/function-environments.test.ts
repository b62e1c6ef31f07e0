/**
 * The local runtime gives every function one shared environment; with the deployed environments
 * enforced, a required read of a variable the invoked function would not be given deployed fails
 * as it would there — and only inside that function's invocations.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { intEnv, optionalEnv, requiredEnv } from '#adapters/environment';
import { lazily, once } from '#handlers/built-once';
import {
  enforceFunctionEnvironments,
  functionVariablesOf,
  takeRefusedReads,
  UndeployedVariableError,
} from '#local/aws-fidelity/function-environments';
import type { SynthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';
import { runInInvocationScope } from '#local/invoke-store';

const stacks = {
  functions: {
    'api-monitoring-stats': { functionLogicalId: 'Stats', roleLogicalId: 'StatsRole' },
    'api-create-job': { functionLogicalId: 'Create', roleLogicalId: 'CreateRole' },
  },
  stateless: {
    Resources: {
      Stats: { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: { METRICS_TABLE_NAME: 'm' } } } },
      Create: {
        Type: 'AWS::Lambda::Function',
        Properties: { Environment: { Variables: { METRICS_TABLE_NAME: 'm', JOBS_TABLE_NAME: 'j' } } },
      },
    },
  },
} as unknown as SynthesizedStacks;

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

process.env.JOBS_TABLE_NAME = 'chronos-local-jobs';
process.env.METRICS_TABLE_NAME = 'chronos-local-metrics';
const inFunction = <T>(name: string, fn: () => T) => runInInvocationScope('req-1', fn, name);

describe('deployed function environments, enforced locally', () => {
  it('reads the variable names each function is given from the template', () => {
    const variables = functionVariablesOf(stacks);
    expect([...(variables.get('api-monitoring-stats') ?? [])]).toEqual(['METRICS_TABLE_NAME']);
    expect([...(variables.get('api-create-job') ?? [])].sort()).toEqual(['JOBS_TABLE_NAME', 'METRICS_TABLE_NAME']);
  });

  it('refuses a read the invoked function would fail deployed, and allows what it is given', () => {
    stop = enforceFunctionEnvironments(functionVariablesOf(stacks));

    expect(() => inFunction('api-monitoring-stats', () => requiredEnv('JOBS_TABLE_NAME'))).toThrow(
      UndeployedVariableError,
    );
    expect(() => inFunction('api-monitoring-stats', () => requiredEnv('JOBS_TABLE_NAME'))).toThrow(
      /Environment variable JOBS_TABLE_NAME is not set/,
    );
    expect(inFunction('api-monitoring-stats', () => requiredEnv('METRICS_TABLE_NAME'))).toBe('chronos-local-metrics');
    expect(inFunction('api-create-job', () => requiredEnv('JOBS_TABLE_NAME'))).toBe('chronos-local-jobs');
    // Kept for the suite's check (a best-effort path may have swallowed them), taken once.
    expect(takeRefusedReads().map((error) => error.message)).toEqual([
      'Environment variable JOBS_TABLE_NAME is not set (deployed, the api-monitoring-stats function is not given it)',
      'Environment variable JOBS_TABLE_NAME is not set (deployed, the api-monitoring-stats function is not given it)',
    ]);
    expect(takeRefusedReads()).toEqual([]);
  });

  it('leaves reads outside an invocation, of unknown functions and after the stop unchecked', () => {
    stop = enforceFunctionEnvironments(functionVariablesOf(stacks));
    expect(requiredEnv('JOBS_TABLE_NAME')).toBe('chronos-local-jobs');
    expect(inFunction('not-in-the-template', () => requiredEnv('JOBS_TABLE_NAME'))).toBe('chronos-local-jobs');

    stop();
    stop = undefined;
    expect(inFunction('api-monitoring-stats', () => requiredEnv('JOBS_TABLE_NAME'))).toBe('chronos-local-jobs');
  });

  it('checks a value built once under one function again when another reuses it, as that one would build its own', () => {
    stop = enforceFunctionEnvironments(functionVariablesOf(stacks));
    let builds = 0;
    const jobsTable = once(() => {
      builds++;
      return requiredEnv('JOBS_TABLE_NAME');
    });
    // Built from other values: their reads are its reads.
    const repository = lazily(() => ({ table: jobsTable(), name: () => `jobs in ${jobsTable()}` }));

    expect(inFunction('api-create-job', () => repository.name())).toBe('jobs in chronos-local-jobs');
    expect(() => inFunction('api-monitoring-stats', () => jobsTable())).toThrow(UndeployedVariableError);
    expect(() => inFunction('api-monitoring-stats', () => repository.table)).toThrow(UndeployedVariableError);
    expect(inFunction('api-create-job', () => repository.table)).toBe('chronos-local-jobs');
    expect(builds).toBe(1);
    expect(takeRefusedReads()).toHaveLength(2);

    const metricsOnly = once(() => requiredEnv('METRICS_TABLE_NAME'));
    expect(inFunction('api-create-job', metricsOnly)).toBe('chronos-local-metrics');
    expect(inFunction('api-monitoring-stats', metricsOnly)).toBe('chronos-local-metrics');
    expect(takeRefusedReads()).toEqual([]);
  });

  it('reads an optional variable the function is not given as unset, as on AWS, and a local runtime setting as set', () => {
    stop = enforceFunctionEnvironments(functionVariablesOf(stacks));
    process.env.LOCAL_ONLY_KNOB = '7';
    try {
      // JOBS_TABLE_NAME is given to api-create-job only: to the stats function its default applies.
      expect(inFunction('api-monitoring-stats', () => optionalEnv('JOBS_TABLE_NAME'))).toBeUndefined();
      expect(inFunction('api-create-job', () => optionalEnv('JOBS_TABLE_NAME'))).toBe('chronos-local-jobs');
      // No deployed function is given LOCAL_ONLY_KNOB: a setting of the local runtime, seen by all.
      expect(inFunction('api-monitoring-stats', () => intEnv('LOCAL_ONLY_KNOB', 1))).toBe(7);
      expect(optionalEnv('JOBS_TABLE_NAME')).toBe('chronos-local-jobs'); // outside an invocation
      expect(takeRefusedReads()).toEqual([]);
    } finally {
      delete process.env.LOCAL_ONLY_KNOB;
    }
  });
});
