/**
 * AWS SDK clients for every function. Endpoints come only from the standard AWS_ENDPOINT_URL*
 * variables, so the same code talks to AWS, LocalStack or the local emulators.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

function endpointFor(service: 'DYNAMODB' | 'SQS'): string | undefined {
  return process.env[`AWS_ENDPOINT_URL_${service}`] ?? process.env.AWS_ENDPOINT_URL;
}

/** A DynamoDB document client that drops undefined attributes instead of failing on them. */
export function createDocumentClient(): DynamoDBDocumentClient {
  const endpoint = endpointFor('DYNAMODB');
  const client = new DynamoDBClient(endpoint ? { endpoint } : {});
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/**
 * An SQS client. The endpoint is passed explicitly (not only through the SDK's own env lookup)
 * because emulators hand out queue URLs whose host names do not resolve, and an explicit
 * endpoint makes the SDK send to it instead of the queue URL's host.
 */
export function createSqsClient(): SQSClient {
  const endpoint = endpointFor('SQS');
  return new SQSClient(endpoint ? { endpoint } : {});
}
