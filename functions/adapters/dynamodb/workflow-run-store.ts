/**
 * Workflow runs in DynamoDB (WORKFLOW_RUNS_TABLE): one item per run, written whole. The first put
 * of a run is conditional on its absence (one run per occurrence); every later write is
 * conditional on the revision read (optimistic concurrency: core/use-cases/workflows/change-workflow-run.ts).
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { Page } from '#core/ports';
import type { WorkflowRunCreation, WorkflowRunStore } from '#core/workflows/ports';
import type { WorkflowRun } from '#core/workflows/stored';
import { parseWorkflowRunId } from '#core/workflows/task-run-id';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { WORKFLOW_RUNS_TABLE } from './table-definitions.ts';

const { partitionKey: PK, sortKey: SK } = WORKFLOW_RUNS_TABLE;
/** A run's sort key: its occurrence in 13 digits. */
const SORT_KEY = /^\d{13}$/;

/** The table key of a workflow's run at `scheduledFor`. */
export function workflowRunKey(tenantId: string, workflowId: string, scheduledFor: number) {
  return { [PK]: `${tenantId}#${workflowId}`, [SK]: String(scheduledFor).padStart(13, '0') };
}

function toItem(run: WorkflowRun) {
  return { ...run, ...workflowRunKey(run.tenantId, run.workflowId, run.scheduledFor) };
}

function fromItem(item: Record<string, unknown>): WorkflowRun {
  const { [PK]: _pk, [SK]: _sk, ...run } = item;
  return run as unknown as WorkflowRun;
}

export class DynamoWorkflowRunStore implements WorkflowRunStore {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(run: WorkflowRun): Promise<WorkflowRunCreation> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(run),
          ConditionExpression: 'attribute_not_exists(#pk)',
          ExpressionAttributeNames: { '#pk': PK },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { created: true };
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const existing = itemOfConditionFailure<Record<string, unknown>>(error);
      if (!existing) throw error;
      return { created: false, existing: fromItem(existing) };
    }
  }

  async get(tenantId: string, workflowRunId: string): Promise<WorkflowRun | undefined> {
    const parts = parseWorkflowRunId(workflowRunId);
    if (!parts) return undefined;
    const { Item } = await this.client.send(
      new GetCommand({
        TableName: this.tableName,
        Key: workflowRunKey(tenantId, parts.workflowId, parts.scheduledFor),
        ConsistentRead: true,
      }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  async replace(run: WorkflowRun, expectedRevision: number): Promise<boolean> {
    try {
      await this.client.send(
        new PutCommand({
          TableName: this.tableName,
          Item: toItem(run),
          ConditionExpression: '#revision = :expected',
          ExpressionAttributeNames: { '#revision': 'revision' },
          ExpressionAttributeValues: { ':expected': expectedRevision },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async listByWorkflow(
    tenantId: string,
    workflowId: string,
    options: { limit: number; cursor?: string },
  ): Promise<Page<WorkflowRun>> {
    const partition = `${tenantId}#${workflowId}`;
    const start = decodeCursor(options.cursor, {
      keys: { [PK]: 'string', [SK]: 'string' },
      pinned: { [PK]: partition },
      accepts: (key) => SORT_KEY.test(String(key[SK])),
    });
    const { Items, LastEvaluatedKey } = await this.client.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': PK },
        ExpressionAttributeValues: { ':pk': partition },
        ScanIndexForward: false,
        Limit: options.limit,
        ...(start === undefined ? {} : { ExclusiveStartKey: start }),
      }),
    );
    const cursor = encodeCursor(LastEvaluatedKey);
    const items = (Items ?? []).map(fromItem);
    return cursor === undefined ? { items } : { items, cursor };
  }
}
