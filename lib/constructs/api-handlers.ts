import { Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { CALLBACK_KEYS_CONTEXT } from '#adapters/dynamodb/callback-key-store';
import { JOBS_TABLE, RUNS_TABLE, TENANTS_TABLE } from '#adapters/dynamodb/table-definitions';
import { ADMITTED_JOBS_ATTRIBUTE } from '#adapters/dynamodb/tenant-keys';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import type { Route } from '#handlers/api/routes';
import { type DispatchLanes, MONITORED_QUEUE_URL_ENV, PRIORITIES } from '../dispatch-lanes.ts';
import { secondaryIndexNames } from '../table-indexes.ts';
import { API_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';

export interface ApiHandlersProps {
  routes: readonly Route[];
  jobsTable: dynamodb.ITable;
  runsTable: dynamodb.ITable;
  /** Workflow runs (routes with `access.workflowRuns`). */
  workflowRunsTable: dynamodb.ITable;
  metricsTable: dynamodb.ITable;
  /** Tenants, tokens, create buckets (routes with `access.tenants`). */
  tenantsTable: dynamodb.ITable;
  /** Wraps the data keys of secret target headers (routes with `access.sealSecrets`). */
  secretsKey: kms.IKey;
  /**
   * Each lane's dispatch queue (routes with `access.sendToDispatchQueue` send a run to its lane's,
   * re-drive included) and dead-letter queue; the monitoring routes report the depths of both.
   */
  dispatchLanes: DispatchLanes;
  /** Failure notices for onFailure URLs (routes with `access.sendFailureNotices`). */
  failureNoticeQueue: sqs.IQueue;
  shared: SharedFunctionProps;
}

/** One function per API route, granted exactly the access its route declares. */
export class ApiHandlers extends Construct {
  /** Functions by handler name (the route's `handler`). */
  public readonly functions: ReadonlyMap<string, ChronosFunction>;

  constructor(scope: Construct, id: string, props: ApiHandlersProps) {
    super(scope, id);
    const functions = new Map<string, ChronosFunction>();
    const jobsIndexes = secondaryIndexNames(JOBS_TABLE);
    const runsIndexes = secondaryIndexNames(RUNS_TABLE);
    for (const route of props.routes) {
      if (functions.has(route.handler)) continue;
      const fn = new ChronosFunction(this, pascalCase(route.handler), {
        handlerFile: `api/${route.handler}.ts`,
        description: `Chronos API: ${route.method} ${route.path}`,
        timeout: API_TIMEOUT,
        ...props.shared,
      });
      const {
        jobs,
        runs,
        workflowRuns,
        sendToDispatchQueue,
        metrics,
        readQueueAttributes,
        readQueueAgeMetric,
        tenants,
        sealSecrets,
        listTenantIds,
        openCallbackKeys,
        sendFailureNotices,
      } = route.access;
      // Routes do not say which indexes they query, so a route may query every declared index of a
      // table it reads (named one by one, never index/*).
      if (jobs) fn.bindTable({ table: props.jobsTable, access: jobs, envName: ENV.jobsTable, indexes: jobsIndexes });
      if (runs) fn.bindTable({ table: props.runsTable, access: runs, envName: ENV.runsTable, indexes: runsIndexes });
      // No index: a workflow's runs are one Query of its partition.
      if (workflowRuns)
        fn.bindTable({ table: props.workflowRunsTable, access: workflowRuns, envName: ENV.workflowRunsTable });
      if (sendToDispatchQueue) fn.bindDispatchLanes(props.dispatchLanes);
      if (sendFailureNotices) fn.bindQueueSend(props.failureNoticeQueue, ENV.failureNoticeQueueUrl);
      if (metrics)
        fn.bindTable({ table: props.metricsTable, access: metrics, envName: OBSERVABILITY_ENV.metricsTable });
      if (tenants) fn.bindTable({ table: props.tenantsTable, access: tenants, envName: ENV.tenantsTable });
      if (listTenantIds) grantTenantIdScan(fn, props.tenantsTable);
      // Sealing needs a data key only: no Encrypt, and never Decrypt (only the executor opens secrets).
      if (sealSecrets) fn.bindKeyGenerateDataKey(props.secretsKey, ENV.secretsKmsKeyId);
      // The callback token keys only (their own encryption context), never a tenant's secrets.
      if (openCallbackKeys)
        fn.bindKeyUnderContext(props.secretsKey, ['kms:Decrypt'], ENV.secretsKmsKeyId, CALLBACK_KEYS_CONTEXT);
      if (readQueueAttributes) {
        for (const lane of PRIORITIES) {
          fn.bindQueueAttributes(props.dispatchLanes[lane].queue, MONITORED_QUEUE_URL_ENV[lane].dispatch);
          fn.bindQueueAttributes(props.dispatchLanes[lane].deadLetterQueue, MONITORED_QUEUE_URL_ENV[lane].deadLetter);
        }
      }
      // The oldest-message age is a CloudWatch metric of those queues, not a queue attribute.
      if (readQueueAgeMetric) fn.bindMetricDataRead();
      Validations.of(fn).acknowledge({
        id: 'Serverless::Serverless-LambdaDLQ',
        reason:
          'API Gateway invokes this function synchronously; a dead-letter queue only applies to asynchronous invocations',
      });
      functions.set(route.handler, fn);
    }
    this.functions = functions;
  }
}

/**
 * dynamodb:Scan and Query on the tenants table, allowed only for reads of its key attributes and
 * the admitted-job counts (job-admissions.ts): the tenants' ids and their share of the job-status
 * counters, without their token hashes, sealed secrets or quotas. `Select` must be sent and say
 * SPECIFIC_ATTRIBUTES (a read without it would read every attribute, and ForAllValues holds for
 * a request that names none).
 */
export function grantTenantIdScan(fn: ChronosFunction, tenantsTable: dynamodb.ITable): void {
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['dynamodb:Scan', 'dynamodb:Query'],
      resources: [tenantsTable.tableArn],
      conditions: {
        'ForAllValues:StringEquals': {
          'dynamodb:Attributes': [TENANTS_TABLE.partitionKey, TENANTS_TABLE.sortKey, ADMITTED_JOBS_ATTRIBUTE],
        },
        StringEquals: { 'dynamodb:Select': 'SPECIFIC_ATTRIBUTES' },
      },
    }),
  );
  fn.addEnvironment(ENV.tenantsTable, tenantsTable.tableName);
}

/** `create-job` becomes `CreateJob`: stable, readable construct ids. */
export function pascalCase(name: string): string {
  return name
    .split(/[^a-zA-Z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]?.toUpperCase() + part.slice(1))
    .join('');
}
