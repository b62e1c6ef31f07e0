import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { METRICS_TABLE } from '#adapters/dynamodb/table-definitions';

export interface MetricsTableProps {
  /** Keep the table (and forbid its deletion) when the stack goes away. */
  retainData: boolean;
}

/**
 * The metrics table: run aggregates per tenant and minute, job-status counters, count-once
 * markers and scanner heartbeats. TTL drops buckets and markers no window reads any more;
 * point-in-time recovery as for every table (the markers are what keep counts exactly-once).
 */
export class MetricsTable extends Construct {
  public readonly table: dynamodb.Table;

  constructor(scope: Construct, id: string, props: MetricsTableProps) {
    super(scope, id);
    this.table = new dynamodb.Table(this, 'Table', {
      partitionKey: { name: METRICS_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: METRICS_TABLE.sortKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: METRICS_TABLE.ttlAttribute,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      deletionProtection: props.retainData,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
