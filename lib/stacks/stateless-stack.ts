import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { releaseSpreadEnvironment } from '#adapters/release-spread-from-env';
import { quotaEnvironment } from '#adapters/tenant-quotas';
import { ROUTES } from '#handlers/api/routes';
import type { ChronosConfig } from '../config.ts';
import { ApiAuthorizer } from '../constructs/api-authorizer.ts';
import { ApiHandlers } from '../constructs/api-handlers.ts';
import { ApiEdgeSecret } from '../constructs/api-waf.ts';
import type { SharedFunctionProps } from '../constructs/chronos-function.ts';
import { CompletionHandler } from '../constructs/completion-handler.ts';
import { ConsoleSite } from '../constructs/console-site.ts';
import { DeadLetterHandler } from '../constructs/dead-letter-handler.ts';
import { Executor } from '../constructs/executor.ts';
import { FailureNotifier } from '../constructs/failure-notifier.ts';
import { Observability } from '../constructs/observability.ts';
import { Scanner } from '../constructs/scanner.ts';
import { SchedulerApi } from '../constructs/scheduler-api.ts';
import { StreamFailureHandler } from '../constructs/stream-failure-handler.ts';
import type { DispatchLanes } from '../dispatch-lanes.ts';

export interface StatelessStackProps extends StackProps {
  config: ChronosConfig;
  jobsTable: dynamodb.ITable;
  runsTable: dynamodb.ITable;
  /** One item per workflow run (the workflow engine and the workflow-run routes). */
  workflowRunsTable: dynamodb.ITable;
  /** Monitoring aggregates, job-status counters and scanner heartbeats. */
  metricsTable: dynamodb.ITable;
  /** Tenants, token hashes, create buckets and executor slots. */
  tenantsTable: dynamodb.ITable;
  /** Wraps the data keys of secret target headers. */
  secretsKey: kms.IKey;
  /**
   * Each priority lane's dispatch queue and the dead-letter queue SQS moves its messages to after
   * maxReceiveCount (whose consumer records dead letters).
   */
  dispatchLanes: DispatchLanes;
  /** Failure notices (completion sends, the notifier consumes) and where they redrive. */
  failureNoticeQueue: sqs.IQueue;
  failureNoticeDeadLetterQueue: sqs.IQueue;
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
  public readonly notifier: FailureNotifier;
  public readonly streamFailures: StreamFailureHandler;
  public readonly observability: Observability;
  /** The web console and its distribution; undefined when the stage's config turns it off. */
  public readonly console: ConsoleSite | undefined;
  /** What the console's distribution sends the API's web ACL; undefined without WAF or console. */
  public readonly edgeSecret: ApiEdgeSecret | undefined;

  constructor(scope: Construct, id: string, props: StatelessStackProps) {
    super(scope, id, props);
    const { config, jobsTable, runsTable, workflowRunsTable, metricsTable, tenantsTable, secretsKey, dispatchLanes } =
      props;
    const shared: SharedFunctionProps = {
      logRetention: config.logRetentionDays as RetentionDays,
      retainLogs: config.retainData,
      runtime: config.lambdaRuntime === 'nodejs22.x' ? lambda.Runtime.NODEJS_22_X : lambda.Runtime.NODEJS_24_X,
      architecture: config.lambdaArchitecture === 'x86_64' ? lambda.Architecture.X86_64 : lambda.Architecture.ARM_64,
      environment: {
        [ENV.dueShardCount]: String(config.dueShardCount),
        [ENV.scanHorizonSeconds]: String(config.scanHorizonSeconds),
        [ENV.runRetentionDays]: String(config.runRetentionDays),
        [ENV.responseExcerptBytes]: String(config.responseExcerptBytes),
        [ENV.leaseMarginSeconds]: String(config.leaseMarginSeconds),
        // Every function that sends runs (API, scanner, completion) releases them the same way.
        ...releaseSpreadEnvironment(config.earlyRelease),
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
      workflowRunsTable,
      metricsTable,
      tenantsTable,
      secretsKey,
      dispatchLanes,
      failureNoticeQueue: props.failureNoticeQueue,
      shared,
    });
    // GET /v1/health has no gateway authorizer and tells the operator apart itself (full check
    // for the admin token only): it needs the token's hash, and no other route does.
    if (config.adminTokenSha256 !== undefined) {
      this.apiHandlers.functions
        .get('health')
        ?.addEnvironment(OBSERVABILITY_ENV.adminTokenSha256, config.adminTokenSha256);
    }
    this.authorizer = new ApiAuthorizer(this, 'Authorizer', {
      tenantsTable,
      ...(config.adminTokenSha256 === undefined ? {} : { adminTokenSha256: config.adminTokenSha256 }),
      shared,
    });
    // The console's distribution proves its requests to the API's web ACL with this secret, so they
    // are rate limited per viewer rather than per CloudFront edge address (api-waf.ts). Without
    // a web ACL or without a console there is nothing to tell apart.
    this.edgeSecret =
      config.waf.enabled && config.console.enabled ? new ApiEdgeSecret(this, 'ApiEdgeSecret') : undefined;
    this.api = new SchedulerApi(this, 'Api', {
      stage: config.stage,
      routes: ROUTES,
      handlers: this.apiHandlers.functions,
      authorizerFunction: this.authorizer.function,
      throttle: config.apiThrottle,
      waf: config.waf,
      ...(this.edgeSecret ? { edgeSecret: this.edgeSecret } : {}),
      corsAllowOrigins: config.corsAllowOrigins,
      detailedMetrics: config.apiDetailedMetrics,
      logRetention: shared.logRetention,
      retainLogs: retainData,
    });
    this.scanner = new Scanner(this, 'Scanner', {
      jobsTable,
      runsTable,
      dispatchLanes,
      metricsTable,
      shared,
      retainData,
    });
    this.executor = new Executor(this, 'Executor', {
      jobsTable,
      runsTable,
      workflowRunsTable,
      failureNoticeQueue: props.failureNoticeQueue,
      dispatchLanes,
      maxConcurrency: {
        high: config.executorHighMaxConcurrency,
        normal: config.executorMaxConcurrency,
        low: config.executorLowMaxConcurrency,
      },
      reservedConcurrency: config.executorReservedConcurrency,
      tenantsTable,
      secretsKey,
      // The stage's public URL (the ApiUrl output), from the configured stage name: the Stage
      // resource's would make the executor wait for every API method.
      callbackBaseUrl: `https://${this.api.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}/${config.stage}`,
      shared,
    });
    this.notifier = new FailureNotifier(this, 'Notifier', {
      queue: props.failureNoticeQueue,
      deadLetterQueue: props.failureNoticeDeadLetterQueue,
      jobsTable,
      tenantsTable,
      secretsKey,
      shared,
    });
    this.completion = new CompletionHandler(this, 'Completion', {
      jobsTable,
      metricsTable,
      runsTable,
      workflowRunsTable,
      dispatchLanes,
      failureNoticeQueue: props.failureNoticeQueue,
      parallelizationFactor: config.completionParallelizationFactor,
      shared,
      retainData,
    });
    this.deadLetters = new DeadLetterHandler(this, 'DeadLetters', {
      runsTable,
      dispatchLanes,
      shared,
    });
    this.streamFailures = new StreamFailureHandler(this, 'StreamFailures', {
      failureQueue: this.completion.failureQueue,
      runsTable,
      jobsTable,
      metricsTable,
      workflowRunsTable,
      dispatchLanes,
      failureNoticeQueue: props.failureNoticeQueue,
      shared,
    });
    this.observability = new Observability(this, 'Observability', {
      stage: config.stage,
      ...(config.alarmEmail === undefined ? {} : { alarmEmail: config.alarmEmail }),
      ...(config.alarmTopicArn === undefined ? {} : { alarmTopicArn: config.alarmTopicArn }),
      failureQueues: new Map([
        ['CompletionStream', this.completion.failureQueue],
        ['Scanner', this.scanner.failureQueue],
      ]),
      functions: new Map([
        ...[...this.apiHandlers.functions.entries()].map(([name, fn]) => [`Api-${name}`, fn] as const),
        ['Authorizer', this.authorizer.function],
        ['Scanner', this.scanner.function],
        ['Executor', this.executor.function],
        ['Completion', this.completion.function],
        ['DeadLetters', this.deadLetters.function],
        ['Notifier', this.notifier.function],
        ['StreamFailures', this.streamFailures.function],
      ]),
      completionFunction: this.completion.function,
      dispatchLanes,
      tables: new Map([
        ['jobs', jobsTable],
        ['runs', runsTable],
        ['workflowRuns', workflowRunsTable],
        ['metrics', metricsTable],
        ['tenants', tenantsTable],
      ]),
      thresholds: config.alarms,
    });
    // Notifications never taken by their endpoint alarm on the same topic as everything else.
    this.notifier.deadLetterAlarm.addAlarmAction(new actions.SnsAction(this.observability.topic));
    this.notifier.deadLetterAlarm.addOkAction(new actions.SnsAction(this.observability.topic));
    if (config.console.enabled) {
      this.console = new ConsoleSite(this, 'Console', {
        restApiId: this.api.api.restApiId,
        // The configured name, not the Stage resource's: that one depends on every method, and
        // through them on the functions, whose environment names the distribution (below).
        stageName: config.stage,
        ...(this.edgeSecret ? { edgeSecret: this.edgeSecret.value } : {}),
        ...(config.console.domainName && config.console.certificateArn
          ? { domain: { name: config.console.domainName, certificateArn: config.console.certificateArn } }
          : {}),
        logRetention: shared.logRetention,
        retainLogs: retainData,
      });
    }
    // Chronos' own API is never a target (a job calling its own trigger route would loop): every
    // function that checks or calls a target URL (create and PATCH, the executor, the onFailure notifier) knows its host.
    // The console's distribution reaches the API too (its /v1/*).
    const apiHosts = [
      `${this.api.api.restApiId}.execute-api.${this.region}.${this.urlSuffix}`,
      ...(this.console ? [this.console.distribution.distributionDomainName] : []),
      ...(this.console && config.console.domainName ? [config.console.domainName] : []),
      ...config.apiHostAliases,
    ];
    for (const fn of [
      ...this.apiHandlers.functions.values(),
      this.executor.function,
      this.completion.function,
      this.streamFailures.function,
      this.notifier.function,
    ]) {
      fn.addEnvironment(ENV.chronosApiHosts, apiHosts.join(','));
    }
    // API answers carry CORS headers for the stage's origins (functions/handlers/api/cors.ts).
    if (config.corsAllowOrigins.length > 0) {
      for (const fn of this.apiHandlers.functions.values()) {
        fn.addEnvironment(ENV.corsAllowOrigins, config.corsAllowOrigins.join(','));
      }
    }
    new CfnOutput(this, 'ApiUrl', { value: this.api.api.url, description: 'Base URL of the Chronos API stage' });
    if (this.console) {
      new CfnOutput(this, 'ConsoleUrl', {
        value: this.console.url,
        description: 'The web console (sign in with a tenant token); its /v1 is this stage API',
      });
    }
    new CfnOutput(this, 'DashboardName', {
      value: this.observability.dashboard.dashboardName,
      description: 'CloudWatch dashboard of this stage',
    });
    new CfnOutput(this, 'AlarmTopicArn', {
      value: this.observability.topic.topicArn,
      description: 'Where every alarm of this stage notifies',
    });
  }
}
