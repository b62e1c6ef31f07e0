import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { ChronosConfig } from '../config.ts';
import { DispatchQueue } from '../constructs/dispatch-queue.ts';
import { FailureNoticeQueue } from '../constructs/failure-notice-queue.ts';
import { JobsTable } from '../constructs/jobs-table.ts';
import { MetricsTable } from '../constructs/metrics-table.ts';
import { RunsTable } from '../constructs/runs-table.ts';
import { SecretsKey } from '../constructs/secrets-key.ts';
import { TenantsTable } from '../constructs/tenants-table.ts';
import { WorkflowRunsTable } from '../constructs/workflow-runs-table.ts';
import type { DispatchLanes } from '../dispatch-lanes.ts';
import { DISPATCH_VISIBILITY_TIMEOUT } from '../timeouts.ts';

export interface StatefulStackProps extends StackProps {
  config: ChronosConfig;
}

/** Everything that holds data: it changes rarely and survives redeploys of the code. */
export class StatefulStack extends Stack {
  public readonly jobsTable: dynamodb.Table;
  public readonly runsTable: dynamodb.Table;
  /** One item per workflow run: its graph and each task's state. */
  public readonly workflowRunsTable: dynamodb.Table;
  /** Monitoring aggregates, job-status counters and scanner heartbeats. */
  public readonly metricsTable: dynamodb.Table;
  /** Tenants, token hashes, create buckets and executor slots. */
  public readonly tenantsTable: dynamodb.Table;
  /** Wraps the data keys of secret target headers. */
  public readonly secretsKey: kms.Key;
  /** The `normal` lane's dispatch queue and its dead-letter queue (the one queue before lanes). */
  public readonly dispatchQueue: sqs.Queue;
  public readonly dispatchDeadLetterQueue: sqs.Queue;
  /** Every priority lane's dispatch and dead-letter queues, `normal` being the two above. */
  public readonly dispatchLanes: DispatchLanes;
  /** Failure notices for onFailure URLs (completion sends, the notifier consumes), and those never delivered. */
  public readonly failureNoticeQueue: sqs.Queue;
  public readonly failureNoticeDeadLetterQueue: sqs.Queue;

  constructor(scope: Construct, id: string, props: StatefulStackProps) {
    super(scope, id, props);
    const { retainData, dispatchMaxReceiveCount } = props.config;
    this.jobsTable = new JobsTable(this, 'Jobs', { retainData }).table;
    this.runsTable = new RunsTable(this, 'Runs', { retainData }).table;
    this.workflowRunsTable = new WorkflowRunsTable(this, 'WorkflowRuns', { retainData }).table;
    this.metricsTable = new MetricsTable(this, 'Metrics', { retainData }).table;
    this.tenantsTable = new TenantsTable(this, 'Tenants', { retainData }).table;
    this.secretsKey = new SecretsKey(this, 'Secrets', { retainData }).key;
    // One queue per lane, alike but for their consumers' concurrency (the executor's event sources).
    // The normal lane keeps the construct id of the single queue before lanes: same logical ids,
    // so deploying lanes onto an existing stage adds two queues and replaces none.
    const lane = (id: string) =>
      new DispatchQueue(this, id, {
        visibilityTimeout: DISPATCH_VISIBILITY_TIMEOUT,
        maxReceiveCount: dispatchMaxReceiveCount,
        retainData,
      });
    const normal = lane('Dispatch');
    this.dispatchLanes = { high: lane('DispatchHigh'), normal, low: lane('DispatchLow') };
    this.dispatchQueue = normal.queue;
    this.dispatchDeadLetterQueue = normal.deadLetterQueue;
    const notices = new FailureNoticeQueue(this, 'FailureNotices', { retainData });
    this.failureNoticeQueue = notices.queue;
    this.failureNoticeDeadLetterQueue = notices.deadLetterQueue;
    // What `npm run admin` needs against this stage (docs/deploy.md): the table and the key.
    new CfnOutput(this, 'TenantsTableName', {
      value: this.tenantsTable.tableName,
      description: 'CHRONOS_TENANTS_TABLE for npm run admin',
    });
    new CfnOutput(this, 'SecretsKeyArn', {
      value: this.secretsKey.keyArn,
      description: 'SECRETS_KMS_KEY_ID for npm run admin (seals signing secrets)',
    });
  }
}
