/** AWS SDK clients pointed at the emulators, with the fake credentials they accept. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { SQSClient } from '@aws-sdk/client-sqs';

export const LOCAL_REGION = 'us-east-1';
export const LOCAL_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' } as const;

export interface LocalEndpoints {
  dynamodb: string;
  sqs: string;
  /**
   * The local CloudWatch (cloudwatch-metrics.ts: the queues' oldest-message age, read from the
   * fauxqs at `sqs`). Optional: startLocalChronos starts one next to its API when not given.
   */
  cloudwatch?: string;
}

export interface LocalClients {
  dynamodb: DynamoDBClient;
  streams: DynamoDBStreamsClient;
  /** `endpoint` is set explicitly, so fauxqs queue URLs with unresolvable hosts still work. */
  sqs: SQSClient;
  destroy(): void;
}

/** Creates one client per service; DynamoDB Local serves Streams on the DynamoDB endpoint. */
export function createLocalClients(endpoints: LocalEndpoints): LocalClients {
  const common = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS };
  const dynamodb = new DynamoDBClient({ ...common, endpoint: endpoints.dynamodb });
  const streams = new DynamoDBStreamsClient({ ...common, endpoint: endpoints.dynamodb });
  // The event sources' pollers receive through this client, one long poll per worker: AWS's
  // pollers are its own fleet, so no pool of 50 sockets may queue one worker behind another.
  const sqs = new SQSClient({
    ...common,
    endpoint: endpoints.sqs,
    requestHandler: { httpAgent: { maxSockets: Number.POSITIVE_INFINITY } },
  });
  return {
    dynamodb,
    streams,
    sqs,
    destroy: () => {
      dynamodb.destroy();
      streams.destroy();
      sqs.destroy();
    },
  };
}
