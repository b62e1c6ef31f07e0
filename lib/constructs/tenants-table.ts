import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { TENANTS_TABLE } from '#adapters/dynamodb/table-definitions';

export interface TenantsTableProps {
  /** Keep the table (and forbid its deletion) when the stack goes away. */
  retainData: boolean;
}

/**
 * The tenants table: tenants, their API tokens (hashes only), create-rate buckets, the
 * executors' per-tenant in-flight slots and create Idempotency-Keys (TTL). Losing it locks every tenant out, hence point-in-time
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
      // Create Idempotency-Keys go after their 24 h; reads treat an expired one as absent anyway.
      timeToLiveAttribute: TENANTS_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retainData,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
