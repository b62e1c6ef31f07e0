import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '#handlers/api/routes';
import { buildPolicyTable, type LocalResources, type PolicyTable } from '#local/aws-fidelity/policy-table';
import { type SynthesizedStacks, synthesizedStacks } from '#local/aws-fidelity/synthesized-stacks';

const queue = (name: string) => ({
  name,
  url: `http://127.0.0.1:9/000000000000/${name}`,
  arn: `arn:aws:sqs:us-east-1:000000000000:${name}`,
});
const LOCAL: LocalResources = {
  tables: {
    jobs: 'l-jobs',
    runs: 'l-runs',
    workflowRuns: 'l-workflow-runs',
    metrics: 'l-metrics',
    tenants: 'l-tenants',
  },
  queues: {
    dispatch: queue('l-dispatch'),
    deadLetter: queue('l-dispatch-dlq'),
    dispatchHigh: queue('l-dispatch-high'),
    deadLetterHigh: queue('l-dispatch-high-dlq'),
    dispatchLow: queue('l-dispatch-low'),
    deadLetterLow: queue('l-dispatch-low-dlq'),
    notices: queue('l-notices'),
    noticeDeadLetter: queue('l-notices-dlq'),
  },
  runsStreamArn: 'arn:aws:dynamodb:us-east-1:000000000000:table/l-runs/stream/1',
  region: 'us-east-1',
  account: '000000000000',
};
const table = (name: string) => `arn:aws:dynamodb:us-east-1:000000000000:table/${name}`;

let stacks: SynthesizedStacks;
let policies: PolicyTable;

beforeAll(async () => {
  stacks = await synthesizedStacks();
  policies = buildPolicyTable(stacks, LOCAL);
}, 120_000);

describe('the policy table from the synthesized stacks', () => {
  it('has a role for every function the local runtime invokes', () => {
    const local = [
      ...new Set(ROUTES.map((route) => `api-${route.handler}`)),
      'authorizer',
      'scanner',
      'executor',
      'completion',
      'dead-letter',
      'notifier',
      'stream-failures',
    ].sort();
    expect([...policies.functions.keys()].sort()).toEqual(local);
  });

  it("resolves the stateful stack's tables, indexes, queues and key to the local ones", () => {
    const executor = policies.functions.get('executor')?.policy;
    expect(executor?.allows('dynamodb:UpdateItem', table('l-runs'))).toBe(true);
    expect(executor?.allows('sqs:SendMessage', LOCAL.queues.dispatch.arn)).toBe(true);
    expect(executor?.allows('kms:Decrypt', 'arn:aws:kms:us-east-1:000000000000:key/local-secrets')).toBe(true);
    expect(executor?.allows('dynamodb:Scan', table('l-runs'))).toBe(false);
    expect(executor?.allows('dynamodb:UpdateItem', table('l-metrics'))).toBe(false);
    const scanner = policies.functions.get('scanner')?.policy;
    expect(scanner?.allows('dynamodb:Query', `${table('l-jobs')}/index/due-index`)).toBe(true);
    expect(scanner?.allows('dynamodb:Query', `${table('l-runs')}/index/sweep-index`)).toBe(true);
    expect(scanner?.allows('dynamodb:Query', `${table('l-runs')}/index/dead-index`)).toBe(false);
  });

  it('resolves the workflow-runs table: the executor, completion and stream-failures get and put it, a function without the grant nothing', () => {
    const workflowRuns = table('l-workflow-runs');
    for (const name of ['executor', 'completion', 'stream-failures']) {
      const policy = policies.functions.get(name)?.policy;
      for (const action of ['dynamodb:GetItem', 'dynamodb:PutItem'])
        expect(policy?.allows(action, workflowRuns), `${name} ${action}`).toBe(true);
      for (const action of ['dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:Query', 'dynamodb:Scan'])
        expect(policy?.allows(action, workflowRuns), `${name} ${action}`).toBe(false);
    }
    for (const name of ['scanner', 'dead-letter', 'notifier', 'api-create-job']) {
      const policy = policies.functions.get(name)?.policy;
      expect(policy?.allows('dynamodb:GetItem', workflowRuns), name).toBe(false);
    }
    // Starting a workflow run can end it FAILED: the executor sends its failure notice.
    const executor = policies.functions.get('executor')?.policy;
    expect(executor?.allows('sqs:SendMessage', LOCAL.queues.notices.arn)).toBe(true);
  });

  it("resolves each priority lane's queues to that lane's local queues: who sends runs may send to every lane, no one else", () => {
    const lanes = [
      [LOCAL.queues.dispatch, LOCAL.queues.deadLetter],
      [LOCAL.queues.dispatchHigh, LOCAL.queues.deadLetterHigh],
      [LOCAL.queues.dispatchLow, LOCAL.queues.deadLetterLow],
    ] as const;
    const policy = (name: string) => policies.functions.get(name)?.policy;
    for (const [dispatch, deadLetter] of lanes) {
      for (const name of ['scanner', 'completion', 'stream-failures', 'executor', 'api-trigger-job', 'api-retry-run'])
        expect(policy(name)?.allows('sqs:SendMessage', dispatch.arn), `${name} ${dispatch.name}`).toBe(true);
      for (const name of ['notifier', 'dead-letter', 'authorizer', 'api-get-job'])
        expect(policy(name)?.allows('sqs:SendMessage', dispatch.arn), `${name} ${dispatch.name}`).toBe(false);
      // The executor hides a claimed run's message on the queue it came from, whatever its lane.
      expect(policy('executor')?.allows('sqs:ChangeMessageVisibility', dispatch.arn), dispatch.name).toBe(true);
      expect(policy('executor')?.allows('sqs:ReceiveMessage', deadLetter.arn), deadLetter.name).toBe(false);
      expect(policy('dead-letter')?.allows('sqs:ReceiveMessage', deadLetter.arn), deadLetter.name).toBe(true);
      expect(policy('dead-letter')?.allows('sqs:ReceiveMessage', dispatch.arn), dispatch.name).toBe(false);
    }
    // A grant on one lane's queue is not a grant on another's, nor on a queue the stack does not know.
    expect(policy('notifier')?.allows('sqs:SendMessage', LOCAL.queues.notices.arn)).toBe(false);
    expect(policy('executor')?.allows('sqs:SendMessage', 'arn:aws:sqs:us-east-1:000000000000:l-dispatch-urgent')).toBe(
      false,
    );
  });

  it('leaves unresolved only resources of the stateless stack, which have no local counterpart (log groups, failure queues)', () => {
    const unresolved = [...policies.functions.values()]
      .flatMap((fn) => fn.statements.flatMap((s) => s.resources))
      .filter((resource) => resource.startsWith('unresolved:'));
    expect(unresolved.length).toBeGreaterThan(0);
    for (const resource of unresolved) {
      const [logicalId] = JSON.parse(resource.slice('unresolved:'.length))['Fn::GetAtt'] as [string];
      expect(stacks.stateless.Resources[logicalId]?.Type).toMatch(/^AWS::(Logs::LogGroup|SQS::Queue)$/);
    }
  });

  it('takes a revoked grant away from that function only', () => {
    const revoked = buildPolicyTable(stacks, LOCAL, [{ functionName: 'executor', action: 'dynamodb:UpdateItem' }]);
    expect(revoked.functions.get('executor')?.policy.allows('dynamodb:UpdateItem', table('l-runs'))).toBe(false);
    expect(revoked.functions.get('executor')?.policy.allows('dynamodb:GetItem', table('l-runs'))).toBe(true);
    expect(revoked.functions.get('completion')?.policy.allows('dynamodb:UpdateItem', table('l-runs'))).toBe(true);
  });
});
