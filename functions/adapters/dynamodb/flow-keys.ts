/**
 * Flow-control keys in the tenants table, one item per tenant and key (`TENANT#<t>` / `FLOW#<key>`:
 * keys of different tenants never meet). Every change of the gate is read, decide (pure:
 * core/flow-control/flow-gate.ts), then one Put conditioned on the item's `version`: two runs that
 * decide on the same version cannot both write, so they never take the same instant or more slots
 * than the limit; the loser decides again on what the winner wrote (returned with the refusal, so
 * without a second read). Limits are written with an unconditional update that bumps the version.
 * Within one process the changes of a key are written together: every change that comes while a
 * write of the key is under way goes into the next write, decided in order, each on what the ones
 * before it left (a group commit). So only other processes' writes can conflict, a hot key is not a
 * retry storm, and a burst of a key's runs costs a few writes of its item, not one each.
 * The process remembers the item as it last wrote or saw it and decides the next change on that,
 * without reading it first: one request per pass instead of two, which on a busy key is what
 * keeps a gate pass shorter than the key's spacing. A stale memory costs nothing wrong: the write
 * is refused and the refusal brings the current item back; a decision to write nothing is never
 * taken on memory alone.
 */
import { type DynamoDBDocumentClient, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { FlowControlSettings } from '#core/flow-control/flow-control-settings';
import type { FlowKeyChange, FlowKeyState, FlowKeyStore } from '#core/flow-control/ports';
import { isConditionFailure, itemOfConditionFailure } from './conditional.ts';
import { LastSeen } from './last-seen.ts';
import { tenantKeys } from './tenant-keys.ts';

/** Decisions retried on conflicting writes before giving up (the caller's message then comes back shortly). */
const MAX_TRIES = 40;
/** Keys whose last item a process remembers, at most (an executor serves a few tenants' keys). */
const MAX_REMEMBERED = 1_000;
/** Changes of one key written together, at most: a refused write decides them all again. */
const MAX_GROUP = 100;

interface PendingChange {
  decide: (state: FlowKeyState | undefined) => FlowKeyChange<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

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
  /** Per key, the changes waiting for the next write of this process. */
  private readonly pending = new Map<string, PendingChange[]>();
  /** Keys whose changes this process is writing now. */
  private readonly draining = new Set<string>();
  /** Per key, the item as this process last wrote or saw it (possibly stale: see above). */
  private readonly remembered = new LastSeen<FlowKeyItem>(MAX_REMEMBERED);

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
    return new Promise<T>((resolve, reject) => {
      const waiting = this.pending.get(id) ?? [];
      waiting.push({ decide, resolve: resolve as (value: unknown) => void, reject });
      this.pending.set(id, waiting);
      if (!this.draining.has(id)) void this.drain(id, tenantId, key);
    });
  }

  /**
   * Applies the key's pending changes, in the order they came, in as few writes as possible: every
   * change queued while a write is under way goes into the next one (a group commit).
   */
  private async drain(id: string, tenantId: string, key: string): Promise<void> {
    this.draining.add(id);
    for (let group = this.take(id); group.length > 0; group = this.take(id)) {
      try {
        const results = await this.changeNow(
          id,
          tenantId,
          key,
          group.map((change) => change.decide),
        );
        for (const [i, change] of group.entries()) change.resolve(results[i]);
      } catch (error) {
        for (const change of group) change.reject(error);
      }
    }
    // No await since the last take(): a change queued now finds the key not draining and starts it.
    this.draining.delete(id);
  }

  private take(id: string): PendingChange[] {
    const group = (this.pending.get(id) ?? []).splice(0, MAX_GROUP);
    if (this.pending.get(id)?.length === 0) this.pending.delete(id);
    return group;
  }

  private async changeNow(
    id: string,
    tenantId: string,
    key: string,
    decisions: Array<(state: FlowKeyState | undefined) => FlowKeyChange<unknown>>,
  ): Promise<unknown[]> {
    let item = this.remembered.get(id);
    let fresh = item === undefined;
    if (fresh) item = await this.readItem(tenantId, key);
    for (let attempt = 1; ; attempt++) {
      // Each decision sees the key as the ones before it in the group left it.
      let state = item ? stateOf(item) : undefined;
      let changed = false;
      const results = decisions.map((decide) => {
        const { result, next } = decide(state);
        if (next) {
          state = next;
          changed = true;
        }
        return result;
      });
      if (!changed || !state) {
        if (fresh) return results;
        // Nothing to write, as remembered: only the current item may say so.
        item = await this.readItem(tenantId, key);
        fresh = true;
        attempt--;
        continue;
      }
      const written: FlowKeyItem = { ...this.itemOf(state), version: (item?.version ?? 0) + 1 };
      try {
        await this.client.send(
          new PutCommand({
            TableName: this.tableName,
            Item: { ...tenantKeys.flowKey(tenantId, key), ...written },
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
        this.remembered.set(id, written);
        return results;
      } catch (error) {
        // Whatever happened to the write, the memory of the item may be wrong now.
        this.remembered.delete(id);
        if (!isConditionFailure(error) || attempt >= MAX_TRIES) throw error;
        // Someone wrote the key first: decide again on what they wrote, after a moment's jitter
        // (none when only this process's memory was stale).
        item = error.Item ? itemOfConditionFailure<FlowKeyItem>(error) : await this.readItem(tenantId, key);
        const stale = !fresh && attempt === 1;
        fresh = true;
        if (!stale) await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(100, 5 * attempt)));
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
