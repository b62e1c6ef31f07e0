/**
 * An SDK middleware that counts every request the handlers' clients send, by service and
 * operation, and sums DynamoDB's consumed capacity. It asks DynamoDB for it by adding
 * `ReturnConsumedCapacity: 'INDEXES'` (TOTAL plus the per-table/per-index breakdown) to data
 * operations. Failed conditional writes consume write units but DynamoDB returns no
 * ConsumedCapacity with the error: those are computed from the size of the item the condition
 * failed on (returned with ReturnValuesOnConditionCheckFailure) and reported apart.
 */
import type { AttributeValue, ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import type { AwsService, ClientMiddlewareHook } from '#adapters/aws-clients';
import { itemSize, writeUnitsFor } from './item-size.ts';

/** Low-level names of the DynamoDB operations that take ReturnConsumedCapacity, by kind. */
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);
const READS = new Set(['GetItem', 'Query', 'Scan', 'BatchGetItem', 'TransactGetItems']);
/** lib-dynamodb command names for the low-level operations. */
const DOCUMENT_NAMES: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  Get: 'GetItem',
  BatchWrite: 'BatchWriteItem',
  BatchGet: 'BatchGetItem',
  TransactWrite: 'TransactWriteItems',
  TransactGet: 'TransactGetItems',
};

export interface CapacitySnapshot {
  /** Units DynamoDB reported (tables and their indexes). */
  writeUnits: number;
  readUnits: number;
  /** Write units of failed conditional writes, computed from item sizes (not reported by DynamoDB). */
  computedWriteUnits: number;
  failedConditionalWrites: number;
  /** Reported units per `table` and `table/index`, write and read. */
  byTarget: Record<string, { write: number; read: number }>;
}

export interface CounterSnapshot {
  /** `DynamoDB.PutItem`, `SQS.SendMessageBatch`, ...: requests sent (retries included). */
  requests: Record<string, number>;
  dynamodb: CapacitySnapshot;
}

function operationOf(commandName: string | undefined): string {
  const name = (commandName ?? 'Unknown').replace(/Command$/, '');
  return DOCUMENT_NAMES[name] ?? name;
}

/** Counts requests and capacity; `hook` is what registerClientMiddleware takes. */
export class AwsRequestCounter {
  private readonly requests = new Map<string, number>();
  private readonly capacity: CapacitySnapshot = {
    writeUnits: 0,
    readUnits: 0,
    computedWriteUnits: 0,
    failedConditionalWrites: 0,
    byTarget: {},
  };

  readonly hook: ClientMiddlewareHook = (service, stack) => {
    stack.add(
      // biome-ignore lint/suspicious/noExplicitAny: the middleware serves every command of the service
      (next: any, context: any) => async (args: any) =>
        this.around(service, operationOf(context.commandName), next, args),
      { step: 'initialize', name: 'benchRequestCounter', priority: 'high' },
    );
  };

  /** Total requests counted so far (for quiescence checks). */
  total(): number {
    let sum = 0;
    for (const count of this.requests.values()) sum += count;
    return sum;
  }

  snapshot(): CounterSnapshot {
    return {
      requests: Object.fromEntries([...this.requests.entries()].sort()),
      dynamodb: structuredClone(this.capacity),
    };
  }

  // biome-ignore lint/suspicious/noExplicitAny: SDK middleware arguments are untyped here
  private async around(service: AwsService, operation: string, next: (args: any) => Promise<any>, args: any) {
    const key = `${service}.${operation}`;
    this.requests.set(key, (this.requests.get(key) ?? 0) + 1);
    const isWrite = service === 'DynamoDB' && WRITES.has(operation);
    const isRead = service === 'DynamoDB' && READS.has(operation);
    if (!isWrite && !isRead) return next(args);
    try {
      const result = await next({ ...args, input: { ...args.input, ReturnConsumedCapacity: 'INDEXES' } });
      this.addConsumed(result?.output?.ConsumedCapacity, isWrite);
      return result;
    } catch (error) {
      const failure = error as { name?: string; Item?: Record<string, AttributeValue> };
      if (isWrite && failure.name === 'ConditionalCheckFailedException') {
        this.capacity.failedConditionalWrites++;
        this.capacity.computedWriteUnits += writeUnitsFor(failure.Item ? itemSize(failure.Item) : 0);
      }
      throw error;
    }
  }

  private addConsumed(consumed: ConsumedCapacity | ConsumedCapacity[] | undefined, isWrite: boolean): void {
    for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
      const units = entry.CapacityUnits ?? 0;
      if (isWrite) this.capacity.writeUnits += units;
      else this.capacity.readUnits += units;
      const table = entry.TableName ?? '?';
      const parts: Array<[string, number]> = [
        [table, entry.Table?.CapacityUnits ?? (entry.GlobalSecondaryIndexes ? 0 : units)],
      ];
      for (const [index, capacity] of Object.entries(entry.GlobalSecondaryIndexes ?? {})) {
        parts.push([`${table}/${index}`, capacity.CapacityUnits ?? 0]);
      }
      for (const [target, value] of parts) {
        const slot = this.capacity.byTarget[target] ?? { write: 0, read: 0 };
        this.capacity.byTarget[target] = slot;
        if (isWrite) slot.write += value;
        else slot.read += value;
      }
    }
  }
}
