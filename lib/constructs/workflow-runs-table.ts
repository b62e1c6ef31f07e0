import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { WORKFLOW_RUNS_TABLE } from '#adapters/dynamodb/table-definitions';

/**
 * What the workflow engine (the executor starting a workflow run from a starter run, the completion
 * handler advancing it) does to a workflow run: reads it and writes it whole, with a conditional put
 * (absent at its start, its revision unchanged after: adapters/dynamodb/workflow-run-store.ts). It
 * never updates in place, deletes (TTL does) nor queries the table (the API lists).
 */
export const WORKFLOW_RUN_ENGINE_ACTIONS = ['dynamodb:GetItem', 'dynamodb:PutItem'] as const;

export interface WorkflowRunsTableProps {
  /** Keep the table (and forbid its deletion) when the stack goes away. */
  retainData: boolean;
}

/**
 * The workflow-runs table: one item per run of a workflow (the graph it started with and each
 * task's state). No stream: the runs stream of its task runs drives it. No index: a workflow's
 * runs are one Query of its partition. TTL on `expiresAt` keeps a workflow run as long as the task
 * runs it lists; point-in-time recovery as for every table.
 */
export class WorkflowRunsTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: WorkflowRunsTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: WORKFLOW_RUNS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: WORKFLOW_RUNS_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: WORKFLOW_RUNS_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retainData,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
