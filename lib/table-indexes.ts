/**
 * Secondary indexes declared in functions/adapters/dynamodb/table-definitions.ts. Any entry of a
 * table definition with a `name` and a `partitionKey` is an index, so a new index appears in the
 * stack (and in the grants) as soon as it is declared there.
 */
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';

export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey?: string;
  /** INCLUDE projection of these attributes; without it the index projects ALL attributes. */
  projectedAttributes?: readonly string[];
}

/** The index definitions found in a table definition. */
export function secondaryIndexes(tableDefinition: object): IndexDefinition[] {
  return Object.values(tableDefinition).filter(
    (value): value is IndexDefinition =>
      typeof value === 'object' &&
      value !== null &&
      typeof (value as IndexDefinition).name === 'string' &&
      typeof (value as IndexDefinition).partitionKey === 'string',
  );
}

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
