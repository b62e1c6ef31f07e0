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

/** Every item of a table, page by page. */
export async function scanAll(documents: DynamoDBDocument, table: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.scan({ TableName: table, ...(start ? { ExclusiveStartKey: start } : {}) });
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}
