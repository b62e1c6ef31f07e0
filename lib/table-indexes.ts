/**
 * Secondary indexes declared in functions/adapters/dynamodb/table-definitions.ts, as CDK GSIs and
 * grant targets (the rule that finds them is shared with the local runtime).
 */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { type IndexDefinition, secondaryIndexes } from '#adapters/dynamodb/table-indexes';

export type { IndexDefinition };
export { secondaryIndexes };

/** Names of the indexes of a table definition, for explicit (non-wildcard) grants. */
export function secondaryIndexNames(tableDefinition: object): string[] {
  return secondaryIndexes(tableDefinition).map((index) => index.name);
}

/**
 * Adds every declared index as a GSI. Chronos indexes are sparse and time-ordered: the partition
 * key is a string (shard or tenant) and the sort key an epoch number.
 */
export function addSecondaryIndexes(table: dynamodb.Table, tableDefinition: object): void {
  for (const index of secondaryIndexes(tableDefinition)) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      ...(index.sortKey ? { sortKey: { name: index.sortKey, type: dynamodb.AttributeType.NUMBER } } : {}),
      ...(index.projectedAttributes
        ? { projectionType: dynamodb.ProjectionType.INCLUDE, nonKeyAttributes: [...index.projectedAttributes] }
        : { projectionType: dynamodb.ProjectionType.ALL }),
    });
  }
}
