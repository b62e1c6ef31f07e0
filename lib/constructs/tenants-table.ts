import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TENANTS_TABLE } from '#adapters/dynamodb/table-definitions';

export interface TenantsTableProps {
  /** Keep the table (and forbid its deletion) when the stack goes away. */
  retainData: boolean;
}

/**
 * The tenants table: tenants, their API tokens (hashes only), create-rate buckets and the
 * executors' per-tenant in-flight slots. Losing it locks every tenant out, hence point-in-time
 * recovery.
 */
export class TenantsTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: TenantsTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: TENANTS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: TENANTS_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retainData,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
