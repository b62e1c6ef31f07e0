/**
 * Workflow heads and their versions' task items in the jobs table (core/workflows/stored.ts): the
 * head is a job item with `kind: 'workflow'`, each task of each version a job item with
 * `kind: 'workflow-task'`. Heads are written and replaced as jobs are (the job repository's
 * conditional put, with its in-flight marker guard), so the scanner, the executor and the job
 * management code see one consistent item whoever wrote it last.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#core/errors';
import type { Page } from '#core/ports';
import type { WorkflowListQuery, WorkflowRepository } from '#core/workflows/ports';
import {
  isWorkflowHead,
  isWorkflowTaskJob,
  WORKFLOW_KIND,
  type WorkflowHead,
  type WorkflowTaskJob,
} from '#core/workflows/stored';
import { batchGetItems, KEYS_PER_BATCH_GET } from './batch-get.ts';
import { isConditionFailure } from './conditional.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { DynamoJobRepository } from './job-repository.ts';
import { jobsCursor } from './listing-cursors.ts';
import { JOBS_TABLE } from './table-definitions.ts';

const { partitionKey: PK, sortKey: SK } = JOBS_TABLE;
/** Every workflow id, and so every head and task item, starts with this (workflow-ids.ts). */
const WORKFLOW_ID_PREFIX = 'wf';
/** Task items put at once: a version has at most 100. */
const PUT_CONCURRENCY = 10;
/** Items a listing evaluates per read: a head is followed by its versions' task items, which the filter drops. */
const LISTING_READ = 200;
/** Reads per listing page at most; the cursor continues where they stopped. */
const LISTING_READS = 5;
/**
 * A version's task items older than this whose version the head never reached were left by a
 * writer that died between them and the head (no API call lives this long): a new PATCH may
 * write that version again. Younger ones belong to a PATCH that may still win: it is refused.
 */
export const ABANDONED_TASKS_AFTER_MS = 15 * 60_000;

/** A version's task items are there already, written by another change that may still land: re-read and retry. */
export class TaskVersionTakenError extends ConflictError {
  constructor(workflowId: string, version: number) {
    super(`workflow ${workflowId} is being changed to version ${version} by another request; re-read it`);
    this.name = 'TaskVersionTakenError';
  }
}

export class DynamoWorkflowRepository implements WorkflowRepository {
  private readonly jobs: DynamoJobRepository;

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.jobs = new DynamoJobRepository(client, tableName);
  }

  async create(head: WorkflowHead, tasks: WorkflowTaskJob[]): Promise<void> {
    // The id is this create's own (fresh, or bound to its Idempotency-Key): items left by an
    // earlier attempt of it are the same tasks, written again.
    await this.putTasks(tasks, undefined);
    await this.jobs.create(head as never);
  }

  async get(tenantId: string, workflowId: string): Promise<WorkflowHead | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: { [PK]: tenantId, [SK]: workflowId }, ConsistentRead: true }),
    );
    return isWorkflowHead(Item) ? Item : undefined;
  }

  async getTasks(tenantId: string, taskJobIds: readonly string[]): Promise<WorkflowTaskJob[]> {
    const keys = [...new Set(taskJobIds)].map((jobId) => ({ [PK]: tenantId, [SK]: jobId }));
    const batches: Record<string, unknown>[][] = [];
    for (let i = 0; i < keys.length; i += KEYS_PER_BATCH_GET) {
      batches.push(await batchGetItems(this.client, this.tableName, keys.slice(i, i + KEYS_PER_BATCH_GET), true));
    }
    return batches.flat().filter((item) => isWorkflowTaskJob(item));
  }

  /**
   * The heads of the tenant's partition in id (= creation) order. Only ids starting with `wf`
   * are read; a head's task items sort right after it and are filtered out, so a page may come
   * back short with a cursor to go on (as a filtered job listing does).
   */
  async list(tenantId: string, query: WorkflowListQuery): Promise<Page<WorkflowHead>> {
    const spec = jobsCursor(tenantId);
    let start: Record<string, unknown> | undefined = decodeCursor(query.cursor, {
      ...spec,
      // A start key outside the query's key range is refused by DynamoDB: a 400 here, not a 500.
      accepts: (key) => String(key[SK]).startsWith(WORKFLOW_ID_PREFIX),
    });
    const items: WorkflowHead[] = [];
    for (let reads = 0; reads < LISTING_READS; reads++) {
      const { Items = [], LastEvaluatedKey } = await this.client.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: '#tenant = :tenant AND begins_with(#id, :prefix)',
          FilterExpression: '#kind = :workflow',
          ExpressionAttributeNames: { '#tenant': PK, '#id': SK, '#kind': 'kind' },
          ExpressionAttributeValues: { ':tenant': tenantId, ':prefix': WORKFLOW_ID_PREFIX, ':workflow': WORKFLOW_KIND },
          ConsistentRead: true,
          Limit: LISTING_READ,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of Items) {
        items.push(item as WorkflowHead);
        // Full: the next page starts after the last head shown, whatever this read evaluated beyond it.
        if (items.length === query.limit) {
          const cursor = encodeCursor({ [PK]: tenantId, [SK]: (item as WorkflowHead).jobId });
          return LastEvaluatedKey || item !== Items.at(-1) ? { items, cursor: cursor as string } : { items };
        }
      }
      start = LastEvaluatedKey;
      if (!start) return { items };
    }
    const cursor = encodeCursor(start);
    return cursor ? { items, cursor } : { items };
  }

  async replace(head: WorkflowHead, newTasks: WorkflowTaskJob[], expectedVersion: number): Promise<boolean> {
    await this.putTasks(newTasks, head.updatedAt - ABANDONED_TASKS_AFTER_MS);
    return this.jobs.replace(head as never, expectedVersion);
  }

  /**
   * Puts task items. With `abandonedBefore`, an item already there is replaced only when it was
   * written before that instant (left by a writer that died before its head); otherwise the
   * version belongs to another change: TaskVersionTakenError.
   */
  private async putTasks(tasks: readonly WorkflowTaskJob[], abandonedBefore: number | undefined): Promise<void> {
    const pending = [...tasks];
    const worker = async () => {
      for (let task = pending.shift(); task; task = pending.shift()) await this.putTask(task, abandonedBefore);
    };
    await Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, tasks.length) }, worker));
  }

  private async putTask(task: WorkflowTaskJob, abandonedBefore: number | undefined): Promise<void> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: task,
          ...(abandonedBefore === undefined
            ? {}
            : {
                ConditionExpression: 'attribute_not_exists(#sk) OR #createdAt < :abandoned',
                ExpressionAttributeNames: { '#sk': SK, '#createdAt': 'createdAt' },
                ExpressionAttributeValues: { ':abandoned': abandonedBefore },
              }),
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new TaskVersionTakenError(task.workflowId, task.workflowVersion);
      throw error;
    }
  }
}
