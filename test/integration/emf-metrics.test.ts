/**
 * The metrics handlers emit are CloudWatch EMF lines in the function's log (no PutMetricData):
 * this reads the real lines a real executor and a real scanner invocation write to stdout, with
 * metrics on as deployed (the local runtime turns them off to keep its console quiet), and checks
 * what CloudWatch needs to turn them into metrics: the `_aws.CloudWatchMetrics` directive with
 * namespace `Chronos`, the `service` and `stage` dimensions (and `tenantId` on the per-tenant copy
 * when METRICS_TENANT_DIMENSION=true), each metric's name and unit, and the values at the root.
 */
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { Context, ScheduledEvent, SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalChronos, startLocalChronos } from '#local/chronos-local';
import { runInInvocationScope } from '#local/invoke-store';
import { invokeLambda } from '#local/lambda-context';
import { scheduledEvent } from '#local/scanner-timer';
import { toSqsRecord } from '#local/sqs-event';
import { type HttpTarget, startHttpTarget } from '../support/http-target.ts';

type Handler<E> = (event: E, context: Context) => Promise<unknown>;
type Emf = Record<string, unknown> & {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
};

const HORIZON_S = 2;
let chronos: LocalChronos;
let target: HttpTarget;
let sqs: SQSClient;
let executor: Handler<SQSEvent>;
let scanner: Handler<ScheduledEvent>;

beforeAll(async () => {
  target = await startHttpTarget();
  // No executor and no scanner timer: the test invokes both itself, from modules loaded with metrics on.
  chronos = await startLocalChronos({
    port: 0,
    scannerIntervalMs: 0,
    scanHorizonSeconds: HORIZON_S,
    components: { executor: false },
    log: () => undefined,
  });
  sqs = new SQSClient({
    endpoint: chronos.endpoints.sqs,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  // As deployed: metrics on, and the per-tenant copy of the run metrics that a stage may turn on.
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  process.env.METRICS_TENANT_DIMENSION = 'true';
  vi.resetModules(); // fresh handler modules, whose Metrics read the variables above
  // Each loaded in an invocation scope of its own, as the local runtime loads handlers (Lambda's init).
  const load = (name: string) =>
    runInInvocationScope(`init-${name}`, () => import(/* @vite-ignore */ `#handlers/${name}`));
  executor = ((await load('executor')) as { handler: Handler<SQSEvent> }).handler;
  scanner = ((await load('scanner')) as { handler: Handler<ScheduledEvent> }).handler;
});
afterAll(async () => {
  delete process.env.POWERTOOLS_METRICS_DISABLED;
  delete process.env.METRICS_TENANT_DIMENSION;
  sqs?.destroy();
  await chronos?.stop();
  await target?.close();
});

/** The EMF lines written to stdout while `work` runs. */
async function emfLinesOf(work: () => Promise<unknown>): Promise<Emf[]> {
  const written: string[] = [];
  // Kept from the console: the test reads them.
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
    written.push(String(chunk));
    return true;
  });
  try {
    await work();
  } finally {
    spy.mockRestore();
  }
  return written
    .flatMap((chunk) => chunk.split('\n'))
    .filter((line) => line.includes('"_aws"'))
    .map((line) => JSON.parse(line) as Emf);
}

/** The one directive of a line, with the metric names it declares. */
function directiveOf(line: Emf) {
  expect(line._aws.CloudWatchMetrics).toHaveLength(1);
  const [directive] = line._aws.CloudWatchMetrics;
  return directive as NonNullable<typeof directive>;
}

async function api(method: string, path: string, body?: unknown) {
  const response = await fetch(`${chronos.apiUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${chronos.token}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as { jobId: string } };
}

describe('EMF metrics in the handlers’ logs', () => {
  it('the executor logs one EMF line with the run metrics, and a per-tenant copy with the tenantId dimension', async () => {
    const created = await api('POST', '/v1/jobs', { target: { url: target.url('/emf') }, schedule: { type: 'once' } });
    expect(created.status).toBe(201);
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: chronos.queues.dispatch.url,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 5,
        MessageSystemAttributeNames: ['All'],
      }),
    );
    const [message] = received.Messages ?? [];
    expect(message?.Body).toContain(created.body.jobId);

    const lines = await emfLinesOf(() =>
      invokeLambda(
        executor,
        { Records: [toSqsRecord(message as NonNullable<typeof message>, chronos.queues.dispatch.arn, 'us-east-1')] },
        { functionName: 'executor', timeoutSeconds: 60 },
      ),
    );
    await sqs.send(
      new DeleteMessageCommand({ QueueUrl: chronos.queues.dispatch.url, ReceiptHandle: message?.ReceiptHandle }),
    );
    expect(target.callsTo('/emf')).toHaveLength(1); // the premise: a real call was made and counted

    const shared = lines.filter((line) => directiveOf(line).Dimensions[0]?.length === 2);
    const perTenant = lines.filter((line) => directiveOf(line).Dimensions[0]?.includes('tenantId'));
    expect(shared).toHaveLength(1);
    const [line] = shared as [Emf];
    const directive = directiveOf(line);
    expect(directive.Namespace).toBe('Chronos');
    expect(directive.Dimensions).toEqual([['service', 'stage']]);
    expect(line).toMatchObject({ service: 'chronos', stage: 'local', RunsSucceeded: 1 });
    expect(Math.abs(line._aws.Timestamp - Date.now())).toBeLessThan(60_000);
    expect(directive.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'RunsSucceeded', Unit: 'Count' },
        { Name: 'StartLagMs', Unit: 'Milliseconds' },
        { Name: 'HttpDurationMs', Unit: 'Milliseconds' },
      ]),
    );
    for (const name of ['StartLagMs', 'HttpDurationMs']) {
      expect(typeof line[name], name).toBe('number');
      expect(line[name] as number, name).toBeGreaterThanOrEqual(0);
    }
    expect(directive.Metrics.map((m) => m.Name)).not.toContain('RunsFailed');

    // The per-tenant copies: one line per metric, the same name and unit, with the tenant as a dimension.
    expect(perTenant.map((l) => directiveOf(l).Metrics[0]?.Name).sort()).toEqual(
      ['HttpDurationMs', 'RunsSucceeded', 'StartLagMs'].sort(),
    );
    for (const copy of perTenant) {
      expect(directiveOf(copy).Namespace).toBe('Chronos');
      expect(directiveOf(copy).Dimensions).toEqual([['service', 'stage', 'tenantId']]);
      expect(copy.tenantId).toBe(chronos.tenantId);
    }
  });

  it('the scanner logs one EMF line with the pass metrics: what it materialized, and every shard’s lag', async () => {
    const at = Date.now() + (HORIZON_S + 2) * 1_000; // beyond the horizon: creation leaves it to the scanner
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url('/emf-scanned') },
      schedule: { type: 'once', at: new Date(at).toISOString() },
    });
    expect(created.status).toBe(201);
    await new Promise((resolve) => setTimeout(resolve, at - HORIZON_S * 1_000 - Date.now() + 300));

    const lines = await emfLinesOf(() =>
      invokeLambda(scanner, scheduledEvent(new Date(), 'us-east-1', 'emf'), {
        functionName: 'scanner',
        timeoutSeconds: 50,
      }),
    );

    expect(lines).toHaveLength(1);
    const [line] = lines as [Emf];
    const directive = directiveOf(line);
    expect(directive.Namespace).toBe('Chronos');
    expect(directive.Dimensions).toEqual([['service', 'stage']]);
    expect(directive.Metrics).toEqual(
      expect.arrayContaining([
        { Name: 'ScannerDurationMs', Unit: 'Milliseconds' },
        { Name: 'ScannerRunsMaterialized', Unit: 'Count' },
        { Name: 'ScannerShardLag', Unit: 'Milliseconds' },
        { Name: 'ScannerShardFailures', Unit: 'Count' },
        { Name: 'JobsQuarantined', Unit: 'Count' },
        { Name: 'ScannerJobFailures', Unit: 'Count' },
      ]),
    );
    expect(line).toMatchObject({
      service: 'chronos',
      stage: 'local',
      ScannerRunsMaterialized: 1,
      ScannerShardFailures: 0,
    });
    // One lag value per due-index shard (16 by default), in the same line.
    expect(line.ScannerShardLag).toHaveLength(16);
  });
});
