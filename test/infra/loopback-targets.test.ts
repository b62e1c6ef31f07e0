/**
 * The deployed stacks never carry the local runtime's switches: a function with
 * ALLOW_LOOPBACK_TARGETS=true would let a tenant aim jobs at 127.0.0.1 inside AWS (the Lambda's own
 * runtime API, anything listening there). Checked over every Lambda of every stage in cdk.json, so a
 * new function or a new stage cannot bring it in.
 */
import { Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import { buildChronosAppForProperties, CDK_JSON_CONTEXT } from './support/chronos-app.ts';

/** Variables only the local runtime sets (functions/local/function-environment.ts). */
const LOCAL_ONLY = [ENV.allowLoopbackTargets, ENV.chronosLocalPorts, ENV.secretsLocalKey, ENV.targetDnsServers];

const STAGES = Object.keys(CDK_JSON_CONTEXT['chronos:stages'] as Record<string, unknown>);

type LambdaFunction = { Properties: { Environment?: { Variables?: Record<string, unknown> } } };

describe('the environment of every deployed function', () => {
  it('names at least the dev and prod stages (the premise of the check below)', () => {
    expect(STAGES).toEqual(expect.arrayContaining(['dev', 'prod']));
  });

  it.each(STAGES)(
    'leaves ALLOW_LOOPBACK_TARGETS and the other local-only variables unset in stage %s',
    (stage) => {
      const chronos = buildChronosAppForProperties({ 'chronos:stage': stage });
      const stacks = chronos.app.node.findAll().filter((node): node is Stack => Stack.isStack(node));
      const functions = stacks.flatMap((stack) =>
        Object.entries(
          Template.fromStack(stack).findResources('AWS::Lambda::Function') as Record<string, LambdaFunction>,
        ),
      );

      // Premise: every Chronos function (each API handler, the authorizer, scanner, executor,
      // completion, dead-letter and stream-failure handlers, the notifier) was looked at, with the environment CDK gives it.
      const chronosFunctions = functions.filter(
        ([, fn]) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME,
      );
      expect(chronosFunctions).toHaveLength(chronos.stateless.apiHandlers.functions.size + 7);
      for (const [id, fn] of functions) {
        const variables = Object.keys(fn.Properties.Environment?.Variables ?? {});
        for (const name of LOCAL_ONLY) expect(variables, `${stage} ${id}`).not.toContain(name);
      }
    },
    120_000,
  );
});
