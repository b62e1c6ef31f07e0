/**
 * Workflow heads and task items in the jobs table (adapters/dynamodb/workflow-repository.ts),
 * against DynamoDB Local: written items first then the head, read back only as what they are,
 * listed apart from jobs (and left out of the job listing), replaced under the head's version
 * with a new version's items that never overwrite another change's.
 */
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import {
  ABANDONED_TASKS_AFTER_MS,
  DynamoWorkflowRepository,
  TaskVersionTakenError,
} from '#adapters/dynamodb/workflow-repository';
import { JobExistsError, ValidationError } from '#core/errors';
import { parseCreateJob } from '#core/job-input';
import { DEFAULT_RETRY_POLICY } from '#core/retry-policy';
import { taskItemsOf } from '#core/use-cases/workflows/task-items';
import { parseCreateWorkflow } from '#core/workflows/parse-workflow';
import type { WorkflowHead } from '#core/workflows/stored';
import { workflowIdOf } from '#core/workflows/workflow-ids';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

const NOW = Date.parse('2026-11-25T03:00:00Z');
let aws: EmulatedAws;
let workflows: DynamoWorkflowRepository;
let jobs: DynamoJobRepository;

beforeAll(async () => {
  aws = await startEmulatedAws();
  workflows = new DynamoWorkflowRepository(aws.documents, aws.resources.tables.jobs);
  jobs = new DynamoJobRepository(aws.documents, aws.resources.tables.jobs);
});
afterAll(() => aws?.stop());

let sequence = 0;
/** A workflow id whose ULID sorts after every earlier one of this file. */
const nextWorkflowId = () => workflowIdOf(`01JD${String(sequence++).padStart(22, '0')}`);

/** A chain of `count` tasks: t0 ← t1 ← …, as parse-workflow reads it. */
function chain(count: number, host = 'example.com') {
  return parseCreateWorkflow(
    {
      tasks: Array.from({ length: count }, (_, i) => ({
        key: `t${i}`,
        target: { url: `https://${host}/t${i}` },
        ...(i === 0 ? {} : { dependsOn: [`t${i - 1}`] }),
      })),
    },
    NOW,
  ).tasks;
}

function workflow(tenantId: string, count: number, version = 1, at = NOW) {
  const workflowId = nextWorkflowId();
  const { items, graph } = taskItemsOf(tenantId, workflowId, version, chain(count), at);
  const head: WorkflowHead = {
    tenantId,
    jobId: workflowId,
    kind: 'workflow',
    policies: { misfire: 'fire_once', overlap: 'allow' },
    status: 'ACTIVE',
    version: 1,
    definitionVersion: 1,
    graph,
    retry: DEFAULT_RETRY_POLICY,
    delivery: 'at-least-once',
    timeoutSeconds: 30,
    createdAt: at,
    updatedAt: at,
    occurrenceCount: 0,
  };
  return { head, items };
}

function job(tenantId: string, jobId: string) {
  const fields = parseCreateJob(
    { target: { url: 'https://example.com/job' }, schedule: { type: 'interval', everySeconds: 60 } },
    NOW,
  );
  return {
    tenantId,
    jobId,
    ...fields,
    status: 'ACTIVE' as const,
    version: 1,
    createdAt: NOW,
    updatedAt: NOW,
    occurrenceCount: 0,
  };
}

describe('creating and reading', () => {
  it('writes the task items and the head; each is read back only as what it is', async () => {
    const { head, items } = workflow('tenant-read', 3);
    await workflows.create(head, items);

    expect(await workflows.get('tenant-read', head.jobId)).toEqual(head);
    expect(await workflows.get('tenant-other', head.jobId)).toBeUndefined();
    // A task item is no head; a head is no task item.
    expect(await workflows.get('tenant-read', `${head.jobId}v1t0`)).toBeUndefined();
    const read = await workflows.getTasks('tenant-read', [...head.graph.map((e) => e.taskJobId), head.jobId, 'nope']);
    expect(read.map((task) => task.jobId).sort()).toEqual(items.map((item) => item.jobId).sort());
    expect(read.find((task) => task.taskKey === 't1')).toEqual(items[1]);

    await jobs.create(job('tenant-read', '01JDJOB0000000000000000000'));
    expect(await workflows.get('tenant-read', '01JDJOB0000000000000000000')).toBeUndefined();
  });

  it('refuses a second head under the same id (JobExistsError), as a job create does', async () => {
    const { head, items } = workflow('tenant-twice', 1);
    await workflows.create(head, items);
    await expect(workflows.create({ ...head, name: 'again' }, items)).rejects.toBeInstanceOf(JobExistsError);
    expect((await workflows.get('tenant-twice', head.jobId))?.name).toBeUndefined();
  });
});

describe('listing', () => {
  const tenant = 'tenant-list';
  const heads: WorkflowHead[] = [];
  beforeAll(async () => {
    // 3 × 90 task items between the heads: more than one read of the listing evaluates.
    for (let i = 0; i < 3; i++) {
      const { head, items } = workflow(tenant, 90);
      await workflows.create(head, items);
      heads.push(head);
    }
    await jobs.create(job(tenant, '01JDAAAA000000000000000000'));
    const theirs = workflow('tenant-list-other', 1);
    await workflows.create(theirs.head, theirs.items);
  }, 60_000);

  it("lists the tenant's heads only, in creation order, page by page", async () => {
    const all = await workflows.list(tenant, { limit: 20 });
    expect(all.items.map((h) => h.jobId)).toEqual(heads.map((h) => h.jobId));
    expect(all.cursor).toBeUndefined();

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await workflows.list(tenant, { limit: 1, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((h) => h.jobId));
      cursor = page.cursor;
    } while (cursor);
    expect(seen).toEqual(heads.map((h) => h.jobId));
  });

  it('refuses a cursor outside the workflows of the partition (400, not a store error)', async () => {
    const jobKey = Buffer.from(JSON.stringify({ tenantId: tenant, jobId: '01JDAAAA000000000000000000' })).toString(
      'base64url',
    );
    await expect(workflows.list(tenant, { limit: 5, cursor: jobKey })).rejects.toBeInstanceOf(ValidationError);
  });

  it('leaves heads and task items out of the job listing (GET /v1/jobs)', async () => {
    const page = await jobs.listByTenant(tenant, { limit: 100 });
    expect(page.items.map((j) => j.jobId)).toEqual(['01JDAAAA000000000000000000']);
    const paged = await jobs.listByTenant(tenant, { limit: 1, status: 'ACTIVE' });
    expect(paged.items.map((j) => j.jobId)).toEqual(['01JDAAAA000000000000000000']);
  });
});

describe('replacing', () => {
  it("writes a new version's items and the head under its version; a stale version writes no head", async () => {
    const { head, items } = workflow('tenant-replace', 2);
    await workflows.create(head, items);
    const v2 = taskItemsOf('tenant-replace', head.jobId, 2, chain(3, 'v2.example.com'), NOW + 1);
    const next: WorkflowHead = { ...head, version: 2, definitionVersion: 2, graph: v2.graph, updatedAt: NOW + 1 };

    expect(await workflows.replace({ ...next, name: 'stale' }, [], 5)).toBe(false);
    expect(await workflows.replace(next, v2.items, 1)).toBe(true);
    expect(await workflows.get('tenant-replace', head.jobId)).toEqual(next);
    const stored = await workflows.getTasks(
      'tenant-replace',
      [...items, ...v2.items].map((i) => i.jobId),
    );
    // Version 1's items as they were, version 2's beside them.
    expect(stored.filter((t) => t.workflowVersion === 1).sort((a, b) => a.jobId.localeCompare(b.jobId))).toEqual(items);
    expect(stored.filter((t) => t.workflowVersion === 2)).toHaveLength(3);
  });

  it("never overwrites another change's items of the same version, but takes over ones abandoned long ago", async () => {
    const { head, items } = workflow('tenant-race', 1);
    await workflows.create(head, items);
    const at = NOW + 60_000;
    const theirs = taskItemsOf('tenant-race', head.jobId, 2, chain(1, 'theirs.example.com'), at);
    const mine = taskItemsOf('tenant-race', head.jobId, 2, chain(1, 'mine.example.com'), at + 1_000);
    // Another PATCH wrote version 2's items and has not written its head yet.
    await aws.documents.send(new PutCommand({ TableName: aws.resources.tables.jobs, Item: theirs.items[0] }));
    const next = { ...head, version: 2, definitionVersion: 2, graph: mine.graph, updatedAt: at + 1_000 };
    await expect(workflows.replace(next, mine.items, 1)).rejects.toBeInstanceOf(TaskVersionTakenError);
    expect((await workflows.getTasks('tenant-race', [theirs.items[0]?.jobId as string]))[0]?.target.url).toBe(
      'https://theirs.example.com/t0',
    );
    expect((await workflows.get('tenant-race', head.jobId))?.definitionVersion).toBe(1);

    // Much later, the head still at version 1: that writer died; its items are taken over.
    const later = at + ABANDONED_TASKS_AFTER_MS + 1;
    const retry = taskItemsOf('tenant-race', head.jobId, 2, chain(1, 'mine.example.com'), later);
    expect(await workflows.replace({ ...next, graph: retry.graph, updatedAt: later }, retry.items, 1)).toBe(true);
    expect((await workflows.getTasks('tenant-race', [retry.items[0]?.jobId as string]))[0]?.target.url).toBe(
      'https://mine.example.com/t0',
    );
  });
});
