import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { quotaEnvironment } from '#adapters/tenant-quotas';
import { ROUTES } from '#handlers/api/routes';
import type { ChronosConfig } from '../config.ts';
import { ApiAuthorizer } from '../constructs/api-authorizer.ts';
import { ApiHandlers } from '../constructs/api-handlers.ts';
import type { SharedFunctionProps } from '../constructs/chronos-function.ts';
import { CompletionHandler } from '../constructs/completion-handler.ts';
import { DeadLetterHandler } from '../constructs/dead-letter-handler.ts';
import { Executor } from '../constructs/executor.ts';
import { Observability } from '../constructs/observability.ts';
import { Scanner } from '../constructs/scanner.ts';
import { SchedulerApi } from '../constructs/scheduler-api.ts';

export interface StatelessStackProps extends StackProps {
  config: ChronosConfig;
  jobsTable: dynamodb.ITable;
  runsTable: dynamodb.ITable;
  /** Monitoring aggregates, job-status counters and scanner heartbeats. */
  metricsTable: dynamodb.ITable;
  /** Tenants, token hashes, create buckets and executor slots. */
  tenantsTable: dynamodb.ITable;
  /** Wraps the data keys of secret target headers. */
  secretsKey: kms.IKey;
  dispatchQueue: sqs.IQueue;
  /** Where SQS moves dispatch messages after maxReceiveCount; its consumer records dead letters. */
  dispatchDeadLetterQueue: sqs.IQueue;
  /** Signs every outbound call; only the executor receives it. */
  signingSecret: secretsmanager.ISecret;
}

/** The code: functions, the API and the schedule. Redeploying it never touches stored data. */
export class StatelessStack extends Stack {
  public readonly api: SchedulerApi;
  public readonly apiHandlers: ApiHandlers;
  public readonly authorizer: ApiAuthorizer;
  public readonly scanner: Scanner;
  public readonly executor: Executor;
  public readonly completion: CompletionHandler;
  public readonly deadLetters: DeadLetterHandler;
  public readonly observability: Observability;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config, jobsTable, runsTable, metricsTable, tenantsTable, secretsKey, dispatchQueue } = props;
    const shared: SharedFunctionProps = {
      logRetention: config.logRetentionDays as RetentionDays,
      retainLogs: config.retainData,
      environment: {
        [ENV.dueShardCount]: String(config.dueShardCount),
        [ENV.scanHorizonSeconds]: String(config.scanHorizonSeconds),
        [ENV.runRetentionDays]: String(config.runRetentionDays),
        [ENV.responseExcerptBytes]: String(config.responseExcerptBytes),
        [ENV.leaseMarginSeconds]: String(config.leaseMarginSeconds),
        [OBSERVABILITY_ENV.stage]: config.stage,
        [OBSERVABILITY_ENV.metricsTenantDimension]: String(config.metricsTenantDimension),
        // Default per-tenant quotas; a tenant item may override them (lib/config.ts `quotas`).
        ...quotaEnvironment(config.quotas),
      },
    };
    const retainData = config.retainData;
    this.apiHandlers = new ApiHandlers(this, 'ApiHandlers', {
      routes: ROUTES,
      jobsTable,
      runsTable,
      metricsTable,
      tenantsTable,
      secretsKey,
      dispatchQueue,
      dispatchDeadLetterQueue: props.dispatchDeadLetterQueue,
      shared,
    });
    this.authorizer = new ApiAuthorizer(this, 'Authorizer', {
      tenantsTable,
      ...(config.adminTokenSha256 === undefined ? {} : { adminTokenSha256: config.adminTokenSha256 }),
      shared,
    });
    this.api = new SchedulerApi(this, 'Api', {
      stage: config.stage,
      routes: ROUTES,
      handlers: this.apiHandlers.functions,
      authorizerFunction: this.authorizer.function,
      throttle: config.apiThrottle,
      corsAllowOrigins: config.corsAllowOrigins,
      logRetention: shared.logRetention,
      retainLogs: retainData,
    });
    this.scanner = new Scanner(this, 'Scanner', {
      jobsTable,
      runsTable,
      dispatchQueue,
      metricsTable,
      shared,
      retainData,
    });
    this.executor = new Executor(this, 'Executor', {
      jobsTable,
      runsTable,
      dispatchQueue,
      maxConcurrency: config.executorMaxConcurrency,
      reservedConcurrency: config.executorReservedConcurrency,
      signingSecret: props.signingSecret,
      tenantsTable,
      secretsKey,
      shared,
    });
    this.completion = new CompletionHandler(this, 'Completion', {
      jobsTable,
      metricsTable,
      runsTable,
      dispatchQueue,
      parallelizationFactor: config.completionParallelizationFactor,
      shared,
      retainData,
    });
    this.deadLetters = new DeadLetterHandler(this, 'DeadLetters', {
      runsTable,
      deadLetterQueue: props.dispatchDeadLetterQueue,
      shared,
    });
    this.observability = new Observability(this, 'Observability', {
      stage: config.stage,
      ...(config.alarmEmail === undefined ? {} : { alarmEmail: config.alarmEmail }),
      functions: new Map([
        ...[...this.apiHandlers.functions.entries()].map(([name, fn]) => [`Api-${name}`, fn] as const),
        ['Authorizer', this.authorizer.function],
        ['Scanner', this.scanner.function],
        ['Executor', this.executor.function],
        ['Completion', this.completion.function],
        ['DeadLetters', this.deadLetters.function],
      ]),
      completionFunction: this.completion.function,
      dispatchQueue,
      dispatchDeadLetterQueue: props.dispatchDeadLetterQueue,
      tables: new Map([
        ['jobs', jobsTable],
        ['runs', runsTable],
        ['metrics', metricsTable],
        ['tenants', tenantsTable],
      ]),
      thresholds: config.alarms,
    });
    // Chronos' own API is never a target (a job calling its own trigger route would loop): every
    // function that checks or calls a target URL (create and PATCH, the executor, onFailure) knows its host.
    const apiHosts = [
      `${this.api.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}`,
      ...config.apiHostAliases,
    ];
    for (const fn of [...this.apiHandlers.functions.values(), this.executor.function, this.completion.function]) {
      fn.addEnvironment(ENV.chronosApiHosts, apiHosts.join(','));
    }
    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the Chronos API stage' });
  }
}
