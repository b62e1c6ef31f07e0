/**
 * A fresh DynamoDB Local + fauxqs pair with Chronos' tables and queues, for one test file.
 * (DynamoDB Local slows down as stream records pile up, so files never share one.)
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { startDynamoDbLocal } from '#local/emulators/dynamodb-local';
import { startSqsEmulator } from '#local/emulators/fauxqs';
import { type ProvisionedResources, provisionLocalResources } from '#local/provision';

export interface EmulatedAws {
  dynamodb: DynamoDBClient;
  documents: DynamoDBDocumentClient;
  sqs: SQSClient;
  resources: ProvisionedResources;
  stop(): Promise<void>;
}

const region = 'us-east-1';
const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };

export async function startEmulatedAws(options: { visibilityTimeoutSeconds?: number } = {}): Promise<EmulatedAws> {
  const [ddb, sqsEmulator] = await Promise.all([startDynamoDbLocal(), startSqsEmulator()]);
  const dynamodb = new DynamoDBClient({ endpoint: ddb.endpoint, region, credentials });
  const sqs = new SQSClient({ endpoint: sqsEmulator.endpoint, region, credentials });
  const resources = await provisionLocalResources({
    dynamodb,
    sqs,
    sqsEndpoint: sqsEmulator.endpoint,
    ...(options.visibilityTimeoutSeconds ? { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds } : {}),
  });
  return {
    dynamodb,
    documents: DynamoDBDocumentClient.from(dynamodb, { marshallOptions: { removeUndefinedValues: true } }),
    sqs,
    resources,
    stop: async () => {
      dynamodb.destroy();
      sqs.destroy();
      await Promise.all([ddb.stop(), sqsEmulator.stop()]);
    },
  };
}
