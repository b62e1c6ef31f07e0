import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import type { DispatchLanes, Priority } from '../dispatch-lanes.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';

export interface DeadLetterHandlerProps {
  runsTable: dynamodb.ITable;
  /** Each lane's dispatch dead-letter queue: a dead letter of any lane ends its run the same way. */
  dispatchLanes: DispatchLanes;
  shared: SharedFunctionProps;
}

/**
 * Consumes every lane's dispatch dead-letter queue and ends each message's run as DEAD_LETTERED with the
 * reason, so a poison message still leaves a visible, terminal run (and the stream finishes its job).
 */
export class DeadLetterHandler extends Construct {
  public readonly function: ChronosFunction;
  /** One event source per lane's dead-letter queue. */
  public readonly eventSources: Readonly<Record<Priority, SqsEventSource>>;

  constructor(scope: Construct, id: string, props: DeadLetterHandlerProps) {
    super(scope, id);
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'dead-letter.ts',
      description: 'Chronos dead letters: records runs whose dispatch message was dead-lettered',
      timeout: Duration.seconds(30),
      ...props.shared,
    }).bindTable({ table: props.runsTable, access: 'readWrite', envName: ENV.runsTable });
    const eventSource = (lane: Priority) => {
      const source = new SqsEventSource(props.dispatchLanes[lane].deadLetterQueue, {
        batchSize: 10,
        maxBatchingWindow: Duration.seconds(1),
        reportBatchItemFailures: true,
        maxConcurrency: 2,
      });
      this.function.addEventSource(source);
      return source;
    };
    this.eventSources = { high: eventSource('high'), normal: eventSource('normal'), low: eventSource('low') };
    const reason =
      'Consumes the dead-letter queue itself: a record that keeps failing stays in that queue (14-day retention) for inspection; there is no further queue to send it to';
    Validations.of(this.function).acknowledge(
      { id: 'Serverless::Serverless-LambdaDLQ', reason },
      { id: 'Serverless::Serverless-LambdaEventSourceMappingDestination', reason },
    );
  }
}
