/** A DynamoDB document client on a local Chronos instance's emulator, for tests that inspect or plant items. */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocument } from '@aws-sdk/lib-dynamodb';

export function localDocuments(endpoint: string): DynamoDBDocument {
  return DynamoDBDocument.from(
    new DynamoDBClient({
      endpoint,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    }),
  );
}
