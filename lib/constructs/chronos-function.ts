import { fileURLToPath } from 'node:url';
import { type Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, SourceMapMode } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DISPATCH_QUEUE_URL_ENV, type DispatchLanes, PRIORITIES } from '../dispatch-lanes.ts';

/** The repository root: handler entries and the lock file are resolved from here. */
export const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Makes `require` available inside the ESM bundle for CommonJS dependencies that call it. */
const ESM_REQUIRE_SHIM =
  "import { createRequire as __chronosCreateRequire } from 'node:module'; const require = __chronosCreateRequire(import.meta.url);";

export interface ChronosFunctionProps {
  /** Handler module, relative to functions/handlers/ (e.g. `api/create-job.ts`). */
  handlerFile: string;
  description: string;
  timeout: Duration;
  /** @default 256 */
  memorySize?: number;
  /** Settings shared by the functions (shard count, horizon...); table and queue names come from the bind helpers. */
  environment?: Record<string, string>;
  logRetention: logs.RetentionDays;
  /** Keep the log group when the stack is deleted. */
  retainLogs: boolean;
  reservedConcurrentExecutions?: number;
  /** Default nodejs24.x on arm64; the stage config may say otherwise (LocalStack: lib/config.ts). */
  runtime?: lambda.Runtime;
  architecture?: lambda.Architecture;
}

export type TableAccess = 'read' | 'readWrite';

export interface TableBinding {
  table: dynamodb.ITable;
  access: TableAccess;
  /** Environment variable that receives the table name (one of ENV in functions/adapters/environment.ts). */
  envName: string;
  /** Secondary indexes the function queries; no index is readable unless named here. */
  indexes?: readonly string[];
}

/** Item reads only: no Scan (a scan crosses tenants) and no table management. */
export const TABLE_READ_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:ConditionCheckItem',
] as const;
/** Item writes (also what TransactWriteItems checks per item). */
export const TABLE_WRITE_ACTIONS = [
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:DeleteItem',
  'dynamodb:BatchWriteItem',
] as const;

/**
 * Every Chronos Lambda: Node.js 24 on arm64, ESM bundle with source maps, active X-Ray tracing,
 * its own log group with retention, and a role that starts with nothing but writing that log
 * group. Access is added only through the bind helpers, which grant and set the environment
 * together so a function never knows a resource it may not use (or vice versa).
 */
export class ChronosFunction extends NodejsFunction {
  /** The function's own role (never undefined, unlike the inherited `role`). */
  public readonly executionRole: iam.Role;

  constructor(scope: Construct, id: string, props: ChronosFunctionProps) {
    const logGroup = new logs.LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // An explicit role keeps the AWS managed AWSLambdaBasicExecutionRole (logs:* on every group) away.
    const role = new iam.Role(scope, `${id}Role`, {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of the Chronos ${id} function`,
    });
    logGroup.grantWrite(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        'Active tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions',
    });
    super(scope, id, {
      entry: `${PROJECT_ROOT}functions/handlers/${props.handlerFile}`,
      handler: 'handler',
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      description: props.description,
      runtime: props.runtime ?? lambda.Runtime.NODEJS_24_X,
      architecture: props.architecture ?? lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 256,
      timeout: props.timeout,
      tracing: lambda.Tracing.ACTIVE,
      logGroup,
      role,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        POWERTOOLS_SERVICE_NAME: 'chronos',
        POWERTOOLS_METRICS_NAMESPACE: 'Chronos',
        ...props.environment,
      },
      bundling: {
        format: OutputFormat.ESM,
        mainFields: ['module', 'main'],
        banner: ESM_REQUIRE_SHIM,
        // The bundle's syntax level follows the runtime it runs on (`nodejs22.x` → `node22`).
        target: (props.runtime ?? lambda.Runtime.NODEJS_24_X).name.replace(/^nodejs(\d+)\.x$/, 'node$1'),
        minify: true,
        sourceMap: true,
        sourceMapMode: SourceMapMode.DEFAULT,
        sourcesContent: false,
        // Bundle the SDK too: the exact versions tested are the ones that run.
        bundleAwsSDK: true,
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
      },
    });
    this.executionRole = role;
  }

  /**
   * Grants item reads (or reads and writes) on a table and on the named indexes only, and sets
   * the table name in `envName`. Narrower than `grantReadData`/`grantReadWriteData`, which also
   * allow Scan and every index (`index/*`).
   */
  bindTable({ table, access, envName, indexes = [] }: TableBinding): this {
    const actions = access === 'read' ? [...TABLE_READ_ACTIONS] : [...TABLE_READ_ACTIONS, ...TABLE_WRITE_ACTIONS];
    iam.Grant.addToPrincipal({
      grantee: this,
      actions,
      resourceArns: [table.tableArn, ...indexes.map((name) => `${table.tableArn}/index/${name}`)],
    });
    this.addEnvironment(envName, table.tableName);
    return this;
  }

  /**
   * Grants exactly `actions` on the table itself (no index), and sets the table name in `envName`:
   * for a function whose use of a table is narrower than bindTable's read or read-write sets.
   */
  bindTableActions(table: dynamodb.ITable, actions: readonly `dynamodb:${string}`[], envName: string): this {
    iam.Grant.addToPrincipal({ grantee: this, actions: [...actions], resourceArns: [table.tableArn] });
    this.addEnvironment(envName, table.tableName);
    return this;
  }

  /** Grants reading a queue's attributes (depths) and nothing else, and sets its URL in `envName`. */
  bindQueueAttributes(queue: sqs.IQueue, envName: string): this {
    iam.Grant.addToPrincipal({ grantee: this, actions: ['sqs:GetQueueAttributes'], resourceArns: [queue.queueArn] });
    this.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /**
   * Grants cloudwatch:GetMetricData, which supports no resource-level permissions and no condition
   * key (Resource '*'; it reads metrics only), and states that on the role's cdk-nag finding.
   */
  bindMetricDataRead(): this {
    iam.Grant.addToPrincipal({ grantee: this, actions: ['cloudwatch:GetMetricData'], resourceArns: ['*'] });
    // Same finding as the constructor acknowledges for X-Ray, restated with the second action.
    Validations.of(this.executionRole).acknowledge({
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason:
        "X-Ray trace writes and cloudwatch:GetMetricData (the queues' ApproximateAgeOfOldestMessage) support no resource-level permissions",
    });
    return this;
  }

  /**
   * Grants kms:GenerateDataKey on the key (sealing with envelope encryption) and sets its ARN in
   * `envName`. Through the role only: the key's default policy delegates to IAM.
   */
  bindKeyGenerateDataKey(key: kms.IKey, envName: string): this {
    iam.Grant.addToPrincipal({ grantee: this, actions: ['kms:GenerateDataKey'], resourceArns: [key.keyArn] });
    this.addEnvironment(envName, key.keyArn);
    return this;
  }

  /** Grants kms:Decrypt on the key (opening sealed secrets) and sets its ARN in `envName`. */
  bindKeyDecrypt(key: kms.IKey, envName: string): this {
    iam.Grant.addToPrincipal({ grantee: this, actions: ['kms:Decrypt'], resourceArns: [key.keyArn] });
    this.addEnvironment(envName, key.keyArn);
    return this;
  }

  /**
   * Grants `actions` on the key only for requests under `context`: each of its pairs must be in the
   * request's encryption context (`kms:EncryptionContext:<name>`), so the grant opens or makes
   * what is sealed for that purpose and nothing else sealed with the same key. Sets its ARN in `envName`.
   */
  bindKeyUnderContext(
    key: kms.IKey,
    actions: readonly ('kms:Decrypt' | 'kms:GenerateDataKey')[],
    envName: string,
    context: Readonly<Record<string, string>>,
  ): this {
    const conditions = Object.fromEntries(
      Object.entries(context).map(([name, value]) => [`kms:EncryptionContext:${name}`, value]),
    );
    this.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...actions],
        resources: [key.keyArn],
        conditions: { StringEquals: conditions },
      }),
    );
    this.addEnvironment(envName, key.keyArn);
    return this;
  }

  /** Grants sending messages to a queue and sets its URL in `envName`. */
  bindQueueSend(queue: sqs.IQueue, envName: string): this {
    queue.grantSendMessages(this);
    this.addEnvironment(envName, queue.queueUrl);
    return this;
  }

  /**
   * Grants sending messages to every lane's dispatch queue and sets their URLs: a function that
   * sends runs sends each to its run's lane (DISPATCH_QUEUE_URL is the `normal` lane's).
   */
  bindDispatchLanes(lanes: DispatchLanes): this {
    for (const lane of PRIORITIES) this.bindQueueSend(lanes[lane].queue, DISPATCH_QUEUE_URL_ENV[lane]);
    return this;
  }
}

/** What every function of a stage shares: log settings and the scheduling environment. */
export type SharedFunctionProps = Pick<
  ChronosFunctionProps,
  'logRetention' | 'retainLogs' | 'environment' | 'runtime' | 'architecture'
>;
