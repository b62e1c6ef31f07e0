/**
 * Flow-control keys in the tenants table, one item per tenant and key (`TENANT#<t>` / `FLOW#<key>`:
 * keys of different tenants never meet). Every change of the gate is read, decide (pure:
 * core/flow-control/flow-gate.ts), then one Put conditioned on the item's `version`: two runs that
 * decide on the same version cannot both write, so they never take the same instant or more slots
 * than the limit; the loser decides again on what the winner wrote (returned with the refusal, so
 * without a second read). Limits are written with an unconditional update that bumps the version.
 * Within one process the changes of a key are made one after the other (the records of a batch
 * share a process): only other processes' writes can conflict, so a hot key is not a retry storm.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FlowControlSettings } from '#core/flow-control/flow-control-settings';
import type { FlowKeyChange, FlowKeyState, FlowKeyStore } from '#core/flow-control/ports';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { tenantKeys } from './tenant-keys.ts';

/** Decisions retried on conflicting writes before giving up (the caller's message then comes back shortly). */
const MAX_TRIES = 40;

interface FlowKeyItem {
  key: string;
  ratePerSecond?: number;
  parallelism?: number;
  updatedAt?: number;
  nextFreeAt?: number;
  /** Run id → lease end, or lease end and wait start for a slot handed to a waiting run. */
  holders?: Record<string, number | { until: number; since: number }>;
  reserved?: FlowKeyState['reserved'];
  waiters?: FlowKeyState['waiters'];
  version?: number;
}

function stateOf(item: FlowKeyItem): FlowKeyState {
  return {
    key: item.key,
    ...(item.ratePerSecond === undefined ? {} : { ratePerSecond: item.ratePerSecond }),
    ...(item.parallelism === undefined ? {} : { parallelism: item.parallelism }),
    ...(item.updatedAt === undefined ? {} : { updatedAt: item.updatedAt }),
    ...(item.nextFreeAt === undefined ? {} : { nextFreeAt: item.nextFreeAt }),
    holders: Object.entries(item.holders ?? {}).map(([runId, held]) =>
      typeof held === 'number' ? { runId, until: held } : { runId, ...held },
    ),
    reserved: item.reserved ?? {},
    waiters: item.waiters ?? {},
  };
}

export class DynamoFlowKeys implements FlowKeyStore {
  /** Per key, the end of the last change queued in this process. */
  private readonly queued = new Map<string, Promise<unknown>>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async writeLimits(tenantId: string, settings: FlowControlSettings, now: number): Promise<void> {
    const sets = ['#key = :key', '#updatedAt = :now', '#version = if_not_exists(#version, :zero) + :one'];
    const removes: string[] = [];
    const values: Record<string, unknown> = { ':key': settings.key, ':now': now, ':zero': 0, ':one': 1 };
    for (const limit of ['ratePerSecond', 'parallelism'] as const) {
      if (settings[limit] === undefined) removes.push(`#${limit}`);
      else {
        sets.push(`#${limit} = :${limit}`);
        values[`:${limit}`] = settings[limit];
      }
    }
    await this.client.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: tenantKeys.flowKey(tenantId, settings.key),
        UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ExpressionAttributeNames: {
          '#key': 'key',
          '#updatedAt': 'updatedAt',
          '#version': 'version',
          '#ratePerSecond': 'ratePerSecond',
          '#parallelism': 'parallelism',
        },
        ExpressionAttributeValues: values,
      }),
    );
  }

  async read(tenantId: string, key: string): Promise<FlowKeyState | undefined> {
    const item = await this.readItem(tenantId, key);
    return item ? stateOf(item) : undefined;
  }

  change<T>(tenantId: string, key: string, decide: (state: FlowKeyState | undefined) => FlowKeyChange<T>): Promise<T> {
    const id = `${tenantId}\u0000${key}`;
    const before = this.queued.get(id) ?? Promise.resolve();
    const mine = before.catch(() => undefined).then(() => this.changeNow(tenantId, key, decide));
    const settled = mine.catch(() => undefined);
    this.queued.set(id, settled);
    // The last one out forgets the key: the map holds only keys with changes under way.
    void settled.then(() => {
      if (this.queued.get(id) === settled) this.queued.delete(id);
    });
    return mine;
  }

  private async changeNow<T>(
    tenantId: string,
    key: string,
    decide: (state: FlowKeyState | undefined) => FlowKeyChange<T>,
  ): Promise<T> {
    let item = await this.readItem(tenantId, key);
    for (let attempt = 1; ; attempt++) {
      const { result, next } = decide(item ? stateOf(item) : undefined);
      if (!next) return result;
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...tenantKeys.flowKey(tenantId, key),
              ...this.itemOf(next),
              version: (item?.version ?? 0) + 1,
            },
            ConditionExpression: item ? '#version = :version' : 'attribute_not_exists(pk)',
            ...(item
              ? {
                  ExpressionAttributeNames: { '#version': 'version' },
                  ExpressionAttributeValues: { ':version': item.version },
                }
              : {}),
            ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
          }),
        );
        return result;
      } catch (error) {
        if (!isConditionFailure(error) || attempt >= MAX_TRIES) throw error;
        // Someone wrote the key first: decide again on what they wrote, after a moment's jitter.
        item = error.Item ? itemOfConditionFailure<FlowKeyItem>(error) : await this.readItem(tenantId, key);
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 5 * attempt)));
      }
    }
  }

  private itemOf(state: FlowKeyState): FlowKeyItem {
    return {
      key: state.key,
      ...(state.ratePerSecond === undefined ? {} : { ratePerSecond: state.ratePerSecond }),
      ...(state.parallelism === undefined ? {} : { parallelism: state.parallelism }),
      ...(state.updatedAt === undefined ? {} : { updatedAt: state.updatedAt }),
      ...(state.nextFreeAt === undefined ? {} : { nextFreeAt: state.nextFreeAt }),
      holders: Object.fromEntries(
        state.holders.map(({ runId, until, since }) => [runId, since === undefined ? until : { until, since }]),
      ),
      reserved: state.reserved,
      waiters: state.waiters,
    };
  }

  private async readItem(tenantId: string, key: string): Promise<FlowKeyItem | undefined> {
    const { Item } = await this.client.send(
      new GetCommand({ TableName: this.tableName, Key: tenantKeys.flowKey(tenantId, key), ConsistentRead: true }),
    );
    return Item as FlowKeyItem | undefined;
  }
}
