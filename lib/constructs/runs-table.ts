import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { RUNS_TABLE } from '#adapters/dynamodb/table-definitions';
import { addSecondaryIndexes } from '../table-indexes.ts';

export interface RunsTableProps {
  /** Keep the table (and forbid its deletion) when the stack goes away. */
  retainData: boolean;
}

/**
 * The runs table. Its stream (old and new images) feeds the completion handler, which compares
 * the two statuses; TTL on `expiresAt` enforces run retention.
 */
export class RunsTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: RunsTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: RUNS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: RUNS_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
      timeToLiveAttribute: RUNS_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retainData,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    addSecondaryIndexes(this.table, RUNS_TABLE);
  }
}
