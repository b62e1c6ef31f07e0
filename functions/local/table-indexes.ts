/**
 * The secondary indexes declared in table-definitions.ts, found by the same rule the CDK stack
 * uses (lib/table-indexes.ts): any entry with a `name` and a `partitionKey` is a GSI whose
 * partition key is a string and sort key an epoch number; `projectedAttributes` means an INCLUDE
 * projection, its absence ALL.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey?: string;
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
