/**
 * Cost per million executions at us-east-1 list prices, from what one execution consumes. The
 * core figure is what the scheduler itself costs (DynamoDB, SQS, Lambda); API Gateway for the
 * create call and CloudWatch Logs are shown beside it because they scale with executions too.
 */

export const PRICES = {
  /** DynamoDB on-demand, per million write / read request units. */
  dynamoWritePerMillion: 0.625,
  dynamoReadPerMillion: 0.125,
  /** SQS standard, per million requests (each 64 KB chunk of a request counts as one). */
  sqsPerMillion: 0.4,
  /** Lambda, per million requests and per GB-second on arm64 (the functions' architecture). */
  lambdaRequestsPerMillion: 0.2,
  lambdaPerGbSecond: 0.0000133334,
  /** API Gateway REST API, per million requests (first 333 M a month). */
  apiGatewayRestPerMillion: 3.5,
  /** CloudWatch Logs ingestion, per GB. */
  logsPerGb: 0.5,
} as const;

/** Per-million prices of hosted schedulers, for comparison. */
export const ALTERNATIVES_PER_MILLION = {
  'EventBridge Scheduler': 1.0,
  QStash: 10,
  'Cloud Tasks': 0.4,
} as const;

/** What one execution consumes, on average. */
export interface PerExecution {
  writeUnits: number;
  readUnits: number;
  sqsRequests: number;
  /** Scheduler-side invocations: scanner, executor, completion (not the API). */
  lambdaInvocations: number;
  /** Billed duration x configured memory of those invocations. */
  lambdaGbSeconds: number;
  /** API requests (create) per execution; 1 for a one-time job, 1/maxRuns for a recurring one. */
  apiRequests: number;
  /** Log bytes the handlers write (CloudWatch Logs ingestion). */
  logBytes: number;
}

export interface CostPerMillion {
  dynamodbWrites: number;
  dynamodbReads: number;
  sqs: number;
  lambdaRequests: number;
  lambdaDuration: number;
  /** DynamoDB + SQS + Lambda: the scheduler itself. */
  core: number;
  apiGateway: number;
  logs: number;
  /** core + API Gateway + logs. */
  all: number;
}

/** Dollars per million executions. */
export function costPerMillion(per: PerExecution, prices = PRICES): CostPerMillion {
  const dynamodbWrites = per.writeUnits * prices.dynamoWritePerMillion;
  const dynamodbReads = per.readUnits * prices.dynamoReadPerMillion;
  const sqs = per.sqsRequests * prices.sqsPerMillion;
  const lambdaRequests = per.lambdaInvocations * prices.lambdaRequestsPerMillion;
  const lambdaDuration = per.lambdaGbSeconds * 1e6 * prices.lambdaPerGbSecond;
  const core = dynamodbWrites + dynamodbReads + sqs + lambdaRequests + lambdaDuration;
  const apiGateway = per.apiRequests * prices.apiGatewayRestPerMillion;
  const logs = ((per.logBytes * 1e6) / 1024 ** 3) * prices.logsPerGb;
  return {
    dynamodbWrites,
    dynamodbReads,
    sqs,
    lambdaRequests,
    lambdaDuration,
    core,
    apiGateway,
    logs,
    all: core + apiGateway + logs,
  };
}

/** GB-seconds of `durationMs` at `memoryMb` (Lambda bills by the millisecond). */
export function gbSeconds(durationMs: number, memoryMb: number): number {
  return (durationMs / 1000) * (memoryMb / 1024);
}
