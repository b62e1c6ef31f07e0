import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { JOBS_TABLE } from '#adapters/dynamodb/table-definitions';
import { addSecondaryIndexes } from '../table-indexes.ts';

export interface JobsTableProps {
  /** Keep the table (and forbid its deletion) when the stack goes away. */
  retainData: boolean;
}

/** The jobs table with its sparse, sharded due-index; key and index names come from the shared table definitions. */
export class JobsTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: JobsTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: JOBS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: JOBS_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retainData,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // The due-index (sparse, sharded, INCLUDE projection) and any index declared later.
    addSecondaryIndexes(this.table, JOBS_TABLE);
  }
}
