/**
 * The secondary indexes declared in table-definitions.ts. Any entry of a table definition with a
 * `name` and a `partitionKey` is a GSI whose partition key is a string (shard or tenant) and sort
 * key an epoch number; `projectedAttributes` means an INCLUDE projection, its absence ALL. The CDK
 * stack (lib/table-indexes.ts) and the local provisioning both read indexes through this module,
 * so a new index appears in both, and in the grants, as soon as it is declared.
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
