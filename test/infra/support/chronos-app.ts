/** Builds the Chronos app for assertions, with the real cdk.json context (the CLI would pass it too). */
import { readFileSync } from 'node:fs';
import { type CfnElement, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { type ChronosApp, type ChronosAppOptions, createChronosApp } from '../../../lib/app.ts';

export const CDK_JSON_CONTEXT: Record<string, unknown> = JSON.parse(
  readFileSync(new URL('../../../cdk.json', import.meta.url), 'utf8'),
).context;

/** The app as `cdk synth` would build it, with extra context layered over cdk.json. */
export function buildChronosApp(
  extraContext: Record<string, unknown> = {},
  options: ChronosAppOptions = {},
): ChronosApp {
  return createChronosApp({ context: { ...CDK_JSON_CONTEXT, ...extraContext } }, options);
}

/** For tests that only look at resource properties: no esbuild bundling and no cdk-nag (cdk-nag.test.ts synthesizes with both, through the CLI). */
export function buildChronosAppForProperties(extraContext: Record<string, unknown> = {}): ChronosApp {
  return buildChronosApp({ ...SKIP_BUNDLING, ...extraContext }, { nag: false });
}

/** Context that turns esbuild bundling off, for tests that only look at resource properties. */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/**
 * Logical-id prefixes of the Lambda functions CDK adds itself as custom-resource handlers: the
 * console's BucketDeployment (lib/constructs/console-site.ts) and the one that empties a bucket
 * before its deletion. Their code, runtime and role are CDK's, so the invariants of Chronos'
 * functions skip them; console-site.test.ts proves they are the only other functions.
 */
export const CDK_HANDLER_PREFIXES = ['CustomCDKBucketDeployment', 'CustomS3AutoDeleteObjectsCustomResourceProvider'];

/** Whether a Lambda function's logical id is one of CDK's own custom-resource handlers. */
export function isCdkHandler(logicalId: string): boolean {
  return CDK_HANDLER_PREFIXES.some((prefix) => logicalId.startsWith(prefix));
}

/** Logical id of a construct's CloudFormation resource (the construct itself or its default child). */
export function logicalIdOf(construct: IConstruct): string {
  const element = (construct.node.defaultChild ?? construct) as CfnElement;
  return Stack.of(construct).getLogicalId(element);
}

export interface Grant {
  actions: string[];
  /** Each resource as its CloudFormation JSON. */
  resources: string[];
  /** The statement's IAM Condition, when it has one. */
  condition?: Record<string, Record<string, unknown>>;
}

/** The KMS actions of grants without a condition (a grant under an encryption context is narrower: its own test). */
export function unconditionedKmsActions(grants: Grant[]): string[] {
  return grants
    .filter((g) => g.condition === undefined)
    .flatMap((g) => g.actions)
    .filter((a) => a.startsWith('kms:'));
}

/** Every Allow statement of the IAM policies attached to a role. */
export function grantsOf(template: Template, roleLogicalId: string): Grant[] {
  const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{
    Properties: { Roles: unknown[]; PolicyDocument: { Statement: Array<Record<string, unknown>> } };
  }>;
  return policies
    .filter((p) => p.Properties.Roles.some((r) => JSON.stringify(r) === JSON.stringify({ Ref: roleLogicalId })))
    .flatMap((p) => p.Properties.PolicyDocument.Statement)
    .filter((s) => s.Effect === 'Allow')
    .map((s) => ({
      actions: ([] as string[]).concat(s.Action as string | string[]).sort(),
      resources: ([] as unknown[]).concat(s.Resource).map((r) => JSON.stringify(r)),
      ...(s.Condition ? { condition: s.Condition as Record<string, Record<string, unknown>> } : {}),
    }));
}

/** Index names a role's grants name explicitly, sorted; a wildcard index grant shows up as `*`. */
export function indexesIn(grants: Grant[]): string[] {
  const names = grants
    .flatMap((g) => g.resources)
    .flatMap((r) => [...r.matchAll(/\/index\/([^"]+)"/g)].map((m) => m[1] as string));
  return [...new Set(names)].sort();
}

/** The actions a role may perform on resources whose JSON contains `resourceMarker`. */
export function actionsOn(grants: Grant[], resourceMarker: RegExp): string[] {
  const actions = grants.filter((g) => g.resources.some((r) => resourceMarker.test(r))).flatMap((g) => g.actions);
  return [...new Set(actions)].sort();
}
