/**
 * The IAM policy of every local function, read from the synthesized templates: the statements of
 * the policies attached to the function's role, with each resource resolved to the ARN of the
 * local table, queue or key it stands for (through the stateless stack's imports of the stateful
 * stack's exports). Resources that resolve to nothing local (log groups, X-Ray's `*` aside) keep
 * a marker that no request matches.
 */

import type { LocalTables } from '../provision.ts';
import type { ResourceArns } from './aws-requests.ts';
import { type CfnScope, type CfnTemplate, resolveCfnValue } from './cfn-values.ts';
import { CompiledPolicy, type PolicyStatement } from './iam-policy.ts';
import type { LocalQueueName, LocalResourceRef, SynthesizedStacks } from './synthesized-stacks.ts';

export interface LocalQueue {
  name: string;
  url: string;
  arn: string;
}

/** The local resources (ProvisionedResources' shape) and the account and region of the local ARNs. */
export interface LocalResources {
  tables: LocalTables;
  queues: Record<LocalQueueName, LocalQueue>;
  runsStreamArn: string;
  region: string;
  account: string;
}

export interface FunctionPolicy {
  functionName: string;
  /** The role's logical id: its physical name exists only once deployed. */
  roleName: string;
  statements: PolicyStatement[];
  policy: CompiledPolicy;
}

export interface PolicyTable {
  /** By local function name. */
  functions: ReadonlyMap<string, FunctionPolicy>;
  arns: ResourceArns;
  account: string;
}

/** A grant taken away, for the test that proves enforcement bites. */
export interface RevokedGrant {
  functionName: string;
  action: string;
}

const SECRETS_KEY_ID = 'local-secrets';

export function buildPolicyTable(
  stacks: SynthesizedStacks,
  local: LocalResources,
  revoked: readonly RevokedGrant[] = [],
): PolicyTable {
  const arns = localArns(local);
  const statefulScope = scopeOfStateful(stacks, local, arns);
  const statelessScope: CfnScope = {
    ref: (name) => pseudoParameter(name, local),
    getAtt: () => undefined,
    importValue: (exportName) => importedValue(stacks.stateful, exportName, statefulScope),
  };
  const functions = new Map<string, FunctionPolicy>();
  for (const [functionName, { roleLogicalId }] of Object.entries(stacks.functions)) {
    const statements = roleStatements(stacks.stateless, roleLogicalId, statelessScope).map((statement) =>
      withoutRevoked(statement, functionName, revoked),
    );
    functions.set(functionName, {
      functionName,
      roleName: roleLogicalId,
      statements,
      policy: new CompiledPolicy(statements),
    });
  }
  return { functions, arns, account: local.account };
}

/** The statements of every AWS::IAM::Policy attached to the role and of the role's inline policies. */
export function roleStatements(template: CfnTemplate, roleLogicalId: string, scope: CfnScope): PolicyStatement[] {
  const documents: unknown[] = [];
  for (const resource of Object.values(template.Resources)) {
    const properties = resource.Properties ?? {};
    if (resource.Type === 'AWS::IAM::Policy' && refersTo(properties.Roles, roleLogicalId))
      documents.push(properties.PolicyDocument);
  }
  const role = template.Resources[roleLogicalId];
  for (const inline of (role?.Properties?.Policies as Array<{ PolicyDocument: unknown }> | undefined) ?? [])
    documents.push(inline.PolicyDocument);
  return documents.flatMap((document) =>
    listOf((document as { Statement?: unknown }).Statement).map((raw) => statementOf(raw as RawStatement, scope)),
  );
}

interface RawStatement {
  Effect: 'Allow' | 'Deny';
  Action?: unknown;
  Resource?: unknown;
  Condition?: PolicyStatement['condition'];
}

function statementOf(raw: RawStatement, scope: CfnScope): PolicyStatement {
  return {
    effect: raw.Effect,
    // NotAction / NotResource are not used by the stack; without Action a statement grants nothing here.
    actions: listOf(raw.Action).map((action) => String(action)),
    resources: listOf(raw.Resource).map(
      (resource) => resolveCfnValue(resource, scope) ?? `unresolved:${JSON.stringify(resource)}`,
    ),
    ...(raw.Condition ? { condition: raw.Condition } : {}),
  };
}

function withoutRevoked(statement: PolicyStatement, functionName: string, revoked: readonly RevokedGrant[]) {
  const gone = revoked.filter((grant) => grant.functionName === functionName).map((grant) => grant.action);
  if (gone.length === 0 || statement.effect !== 'Allow') return statement;
  return { ...statement, actions: statement.actions.filter((action) => !gone.includes(action)) };
}

function refersTo(roles: unknown, logicalId: string): boolean {
  return listOf(roles).some((role) => (role as { Ref?: unknown }).Ref === logicalId);
}

function listOf(value: unknown): unknown[] {
  return value === undefined ? [] : Array.isArray(value) ? value : [value];
}

function pseudoParameter(name: string, local: LocalResources): string | undefined {
  const values: Record<string, string> = {
    'AWS::Partition': 'aws',
    'AWS::Region': local.region,
    'AWS::AccountId': local.account,
    'AWS::URLSuffix': 'amazonaws.com',
  };
  return values[name];
}

function importedValue(stateful: CfnTemplate, exportName: string, scope: CfnScope): string | undefined {
  for (const output of Object.values(stateful.Outputs ?? {})) {
    if (output.Export && resolveCfnValue(output.Export.Name, scope) === exportName)
      return resolveCfnValue(output.Value, scope);
  }
  return undefined;
}

/** Refs and attributes of the stateful stack's resources, as the local runtime has them. */
function scopeOfStateful(stacks: SynthesizedStacks, local: LocalResources, arns: ResourceArns): CfnScope {
  const keyArn = `arn:aws:kms:${local.region}:${local.account}:key/${SECRETS_KEY_ID}`;
  const of = (id: string): LocalResourceRef | undefined => stacks.resources[id];
  return {
    ref: (name) => {
      const resource = of(name);
      if (!resource) return pseudoParameter(name, local);
      if (resource.kind === 'table') return local.tables[resource.table];
      if (resource.kind === 'queue') return local.queues[resource.queue].url;
      return SECRETS_KEY_ID;
    },
    getAtt: (id, attribute) => {
      const resource = of(id);
      if (!resource) return undefined;
      if (resource.kind === 'table') {
        const name = local.tables[resource.table];
        if (attribute === 'Arn') return arns.table(name);
        return attribute === 'StreamArn' && resource.table === 'runs' ? local.runsStreamArn : undefined;
      }
      if (resource.kind === 'queue') {
        const queue = local.queues[resource.queue];
        return { Arn: queue.arn, QueueName: queue.name, QueueUrl: queue.url }[attribute];
      }
      return attribute === 'Arn' ? keyArn : attribute === 'KeyId' ? SECRETS_KEY_ID : undefined;
    },
    importValue: () => undefined,
  };
}

/** ARNs of names found in requests; queues the stack does not know get the ARN their URL implies. */
function localArns(local: LocalResources): ResourceArns {
  const queues = Object.values(local.queues);
  const queueByUrl = new Map(queues.map((queue) => [queue.url, queue.arn]));
  const queueByName = new Map(queues.map((queue) => [queue.name, queue.arn]));
  const queueArn = (name: string) => `arn:aws:sqs:${local.region}:${local.account}:${name}`;
  return {
    table: (name) => `arn:aws:dynamodb:${local.region}:${local.account}:table/${name}`,
    queueOfUrl: (url) => queueByUrl.get(url) ?? queueArn(url.split('/').pop() ?? url),
    queueOfName: (name) => queueByName.get(name) ?? queueArn(name),
  };
}
