/**
 * Flow-control keys against DynamoDB Local (adapters/dynamodb/flow-keys.ts), with concurrent
 * takers in separate store instances (as separate executor processes are): no two runs get the
 * same instant, never more slots than the limit; a holder that dies (its lease simply ends, never
 * released) gives its slot back at its lease end; a release hands the slot to the first waiter;
 * limits written by a job write replace the key's without touching its slots; keys of different
 * tenants never meet.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoFlowKeys } from '#adapters/dynamodb/flow-keys';
import { decideGate, decideRelease, type GateRun, START_JITTER_MS } from '#core/flow-control/flow-gate';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

let aws: EmulatedAws;
let stores: DynamoFlowKeys[];
const T0 = 1_800_000_000_000;
const SPAN = 30_000;

beforeAll(async () => {
  aws = await startEmulatedAws();
  // Five "processes": changes queued in one store never conflict, across stores they do.
  stores = Array.from({ length: 5 }, () => new DynamoFlowKeys(aws.documents, aws.resources.tables.tenants));
}, 60_000);
afterAll(async () => {
  await aws?.stop();
});

function runOf(tenantId: string, n: number): GateRun {
  const runId = `job${n}_${T0}_1`;
  return {
    runId,
    lane: 'normal',
    readyAt: T0,
    leaseSpanMs: SPAN,
    message: { tenantId, jobId: `job${n}`, runId, scheduledFor: T0, attempt: 1 },
  };
}

describe('flow-control keys in DynamoDB', () => {
  it('gives 40 concurrent runs 40 distinct instants, spaced by the rate', async () => {
    const settings = { key: 'rate-key', ratePerSecond: 10 };
    await stores[0]?.writeLimits('tenant-a', settings, T0);
    const decisions = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (stores[i % 5] as DynamoFlowKeys).change('tenant-a', 'rate-key', (state) =>
          decideGate(state, settings, runOf('tenant-a', i), T0),
        ),
      ),
    );
    const instants = decisions.map((d) => d.startAt as number).sort((a, b) => a - b);
    expect(new Set(instants).size).toBe(40);
    const spacing = (1000 + START_JITTER_MS) / 10;
    for (const [i, at] of instants.entries()) expect(at).toBeCloseTo(T0 + i * spacing, 6);
  }, 60_000);

  it('never lets more concurrent runs hold slots than the limit; a dead holder’s slot comes back at its lease end', async () => {
    const settings = { key: 'slot-key', parallelism: 3 };
    await stores[0]?.writeLimits('tenant-a', settings, T0);
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        (stores[i % 5] as DynamoFlowKeys).change('tenant-a', 'slot-key', (state) =>
          decideGate(state, settings, runOf('tenant-a', i), T0),
        ),
      ),
    );
    expect(decisions.filter((d) => d.kind === 'go')).toHaveLength(3);
    const key = await stores[1]?.read('tenant-a', 'slot-key');
    expect(key?.holders).toHaveLength(3);
    expect(Object.keys(key?.waiters ?? {})).toHaveLength(27);

    // The three holders die: nobody gives a slot back. Before their leases end nobody else goes...
    const late = runOf('tenant-a', 100);
    const before = await stores[2]?.change('tenant-a', 'slot-key', (s) => decideGate(s, settings, late, T0 + SPAN - 1));
    expect(before).toMatchObject({ kind: 'wait', until: T0 + SPAN });
    // ...and at their lease end, the slots are free again.
    const after = await Promise.all(
      [101, 102, 103, 104].map((n, i) =>
        (stores[i] as DynamoFlowKeys).change('tenant-a', 'slot-key', (s) =>
          decideGate(s, settings, runOf('tenant-a', n), T0 + SPAN),
        ),
      ),
    );
    expect(after.filter((d) => d.kind === 'go')).toHaveLength(3);
  }, 60_000);

  it('hands a released slot to the first waiter and sends its message', async () => {
    const settings = { key: 'handoff', parallelism: 1 };
    const store = stores[0] as DynamoFlowKeys;
    const first = runOf('tenant-b', 1);
    const second = runOf('tenant-b', 2);
    await store.change('tenant-b', 'handoff', (s) => decideGate(s, settings, first, T0));
    expect(await store.change('tenant-b', 'handoff', (s) => decideGate(s, settings, second, T0 + 5))).toMatchObject({
      kind: 'wait',
    });
    const released = await store.change('tenant-b', 'handoff', (s) => decideRelease(s, first.runId, T0 + 1_000));
    expect(released.wake).toEqual(second.message);
    const woken = await store.change('tenant-b', 'handoff', (s) => decideGate(s, settings, second, T0 + 1_100));
    expect(woken).toMatchObject({ kind: 'go', waitedMs: 1_100 }); // since it was ready (T0)
  });

  it('passes a key with one write when its process wrote it last, and decides right when another wrote since', async () => {
    const { counted, sent } = countingFlowKeys();
    const settings = { key: 'one-write', parallelism: 2 };
    await counted.change('tenant-f', 'one-write', (s) => decideGate(s, settings, runOf('tenant-f', 1), T0));
    sent.length = 0;
    await counted.change('tenant-f', 'one-write', (s) => decideGate(s, settings, runOf('tenant-f', 2), T0));
    expect(sent).toEqual(['PutCommand']);
    // Another process takes the last slot: this one's memory is stale, its write refused, and it
    // decides again on the item the refusal brought back (no slot left: the run waits).
    await (stores[1] as DynamoFlowKeys).change('tenant-f', 'one-write', (s) =>
      decideRelease(s, runOf('tenant-f', 1).runId, T0 + 1),
    );
    await (stores[1] as DynamoFlowKeys).change('tenant-f', 'one-write', (s) =>
      decideGate(s, settings, runOf('tenant-f', 3), T0 + 2),
    );
    sent.length = 0;
    const fourth = await counted.change('tenant-f', 'one-write', (s) =>
      decideGate(s, settings, runOf('tenant-f', 4), T0 + 3),
    );
    expect(fourth).toMatchObject({ kind: 'wait', reason: 'parallelism' });
    expect(sent).toEqual(['PutCommand', 'PutCommand']);
    const key = await counted.read('tenant-f', 'one-write');
    expect(key?.holders.map((h) => h.runId).sort()).toEqual(
      [runOf('tenant-f', 2).runId, runOf('tenant-f', 3).runId].sort(),
    );
    expect(Object.keys(key?.waiters ?? {})).toEqual([runOf('tenant-f', 4).runId]);
  });

  it("writes a burst of one process's changes of a key together, each decided on what the ones before it left", async () => {
    const { counted, sent } = countingFlowKeys();
    const settings = { key: 'burst', ratePerSecond: 10 };
    const decisions = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        counted.change('tenant-g', 'burst', (s) => decideGate(s, settings, runOf('tenant-g', i), T0)),
      ),
    );
    const spacing = (1000 + START_JITTER_MS) / 10;
    expect(decisions.map((d) => d.startAt)).toEqual(decisions.map((_, i) => T0 + i * spacing));
    // The first change alone (a read and a write), then the 29 that came meanwhile in one write.
    expect(sent).toEqual(['GetCommand', 'PutCommand', 'PutCommand']);
    expect(Object.keys((await counted.read('tenant-g', 'burst'))?.reserved ?? {})).toHaveLength(
      decisions.filter((d) => d.kind === 'wait').length,
    );
  });

  it('replaces the limits on a write and keeps the key per tenant', async () => {
    const store = stores[0] as DynamoFlowKeys;
    await store.writeLimits('tenant-c', { key: 'shared-name', ratePerSecond: 5, parallelism: 4 }, T0);
    await store.writeLimits('tenant-d', { key: 'shared-name', parallelism: 1 }, T0);
    await store.change('tenant-c', 'shared-name', (s) =>
      decideGate(s, { key: 'shared-name', parallelism: 4 }, runOf('tenant-c', 1), T0),
    );
    await store.writeLimits('tenant-c', { key: 'shared-name', parallelism: 2 }, T0 + 10);
    const c = await store.read('tenant-c', 'shared-name');
    expect(c).toMatchObject({ key: 'shared-name', parallelism: 2, updatedAt: T0 + 10 });
    expect(c?.ratePerSecond).toBeUndefined();
    expect(c?.holders).toHaveLength(1);
    const d = await store.read('tenant-d', 'shared-name');
    expect(d).toMatchObject({ parallelism: 1, holders: [] });
    expect(await store.read('tenant-e', 'shared-name')).toBeUndefined();
  });
});

/** A store whose DynamoDB requests are named in `sent`, in order: the write counts these tests bound. */
function countingFlowKeys(): { counted: DynamoFlowKeys; sent: string[] } {
  const sent: string[] = [];
  const counted = new DynamoFlowKeys(
    {
      send: (command: { constructor: { name: string } }) => {
        sent.push(command.constructor.name);
        return aws.documents.send(command as never);
      },
    } as never,
    aws.resources.tables.tenants,
  );
  return { counted, sent };
}
