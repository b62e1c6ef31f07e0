/**
 * Keeps the messages of one executor batch out of sight while the runs they brought are leased,
 * and no longer: the queue's own visibility timeout (six times the executor's timeout, AWS's advice
 * for event sources) would otherwise hide a dead executor's runs for half an hour.
 *
 * Usually one ChangeMessageVisibilityBatch per invocation: the claims of a batch are made within
 * milliseconds of each other, and the call goes out, alongside them, once every record has come to
 * its claim or finished without one. A record that is slow to claim (a throttled read, a tenant slot it waits
 * for) does not hold the others' change back: claims wait at most `COALESCE_MS` for company, and a
 * later claim makes another call. All held messages get the same timeout, the latest lease among
 * them plus a little slack: the event source mapping deletes a batch's messages only when the whole
 * invocation returns, so a message given its own, shorter lease would come back while a slower
 * neighbour still holds the invocation, and cost a receive that finds its run finished. A record
 * that finished before a call needs no change: its message is deleted with the batch.
 *
 * An executor receives from every lane's queue (lane-queues.ts): each message's visibility is
 * changed on the queue its record came from, one call per queue.
 *
 * Best effort: a failed change leaves the queue's timeout in force (slower recovery, never a
 * second call: the lease decides who may call), so it is reported, not thrown.
 */
import { ChangeMessageVisibilityBatchCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { RunRedelivery } from '#core/ports';

/** After the lease: room for the outcome's write and the event source mapping's delete. */
export const VISIBILITY_SLACK_SECONDS = 2;
/** How long a claim waits for the rest of its batch before its message is hidden anyway. */
export const COALESCE_MS = 20;
/** SQS's ceiling for a visibility timeout (12 hours). */
const MAX_VISIBILITY_SECONDS = 43_200;
const ENTRIES_PER_CALL = 10;

/** One record of the batch, as the visibility needs it. */
export interface BatchMessage {
  messageId: string;
  receiptHandle: string;
  /** The queue the record came from (SQS event records carry it). */
  eventSourceARN?: string;
}

/** The URL of the queue a record came from; undefined when it is none this function may change. */
export type QueueOfMessage = (message: BatchMessage) => string | undefined;

/** A record's part: its claim (`afterLease`), and `settle` once its handler is done, claimed or not. */
export interface MessageLease extends RunRedelivery {
  settle(): void;
  /**
   * The record failed without a call and holds no claim: its message is to come back in `seconds`,
   * not when a lease or the queue's visibility timeout ends. Its own change, not the batch's: a
   * failed record is never deleted with the batch, so it need not wait for its neighbours.
   */
  comeBackIn(seconds: number): void;
}

export class BatchLeaseVisibility {
  /** Records that have neither claimed nor settled. */
  private readonly unreported = new Set<string>();
  /** Claimed and still running: the messages a call hides, with their lease ends. */
  private readonly held = new Map<string, Held>();
  /** A claim not yet covered by a call. */
  private claimedSinceCall = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private calls: Promise<void> = Promise.resolve();

  private readonly queueOf: QueueOfMessage;

  /** `queue`: the URL of the one queue every record comes from, or how to find each record's. */
  constructor(
    private readonly client: SQSClient,
    queue: string | QueueOfMessage,
    messages: BatchMessage[],
    private readonly now: () => number = Date.now,
  ) {
    this.queueOf = typeof queue === 'string' ? () => queue : queue;
    for (const message of messages) this.unreported.add(message.messageId);
  }

  /** `onFailure` hears why this record's message could not be hidden (to be logged with the run's keys). */
  forMessage(message: BatchMessage, onFailure: Failure): MessageLease {
    return {
      afterLease: (leaseExpiresAt) => {
        if (!this.unreported.has(message.messageId)) return;
        this.held.set(message.messageId, {
          receiptHandle: message.receiptHandle,
          queueUrl: this.queueOf(message),
          leaseExpiresAt,
          onFailure,
        });
        this.claimedSinceCall = true;
        this.reported(message.messageId);
      },
      settle: () => {
        this.held.delete(message.messageId);
        this.reported(message.messageId);
      },
      comeBackIn: (seconds) => {
        this.held.delete(message.messageId);
        this.reported(message.messageId);
        // Chained after any change already under way that may still hide it until a lease ends.
        const entry = { receiptHandle: message.receiptHandle, queueUrl: this.queueOf(message), onFailure };
        this.calls = this.calls.then(() => this.change([entry], boundedSeconds(seconds)));
      },
    };
  }

  /** Resolves once every change has been made: the invocation must not end before. */
  done(): Promise<void> {
    return this.calls;
  }

  private reported(messageId: string): void {
    if (!this.unreported.delete(messageId) || !this.claimedSinceCall) return;
    if (this.unreported.size === 0) this.hideHeld();
    else this.timer ??= setTimeout(() => this.hideHeld(), COALESCE_MS);
  }

  private hideHeld(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.claimedSinceCall = false;
    // Every message still held, including ones hidden by an earlier call: the latest lease may have grown.
    const held = [...this.held.values()];
    if (held.length > 0) this.calls = this.calls.then(() => this.hide(held));
  }

  private async hide(held: Held[]): Promise<void> {
    const latest = Math.max(...held.map((h) => h.leaseExpiresAt));
    await this.change(
      held,
      boundedSeconds(Math.max(0, Math.ceil((latest - this.now()) / 1000)) + VISIBILITY_SLACK_SECONDS),
    );
  }

  private async change(held: Array<Omit<Held, 'leaseExpiresAt'>>, seconds: number): Promise<void> {
    const byQueue = new Map<string, Array<Omit<Held, 'leaseExpiresAt'>>>();
    for (const h of held) {
      if (h.queueUrl === undefined) h.onFailure('the record came from no dispatch queue of this function');
      else byQueue.set(h.queueUrl, [...(byQueue.get(h.queueUrl) ?? []), h]);
    }
    await Promise.all([...byQueue].map(([queueUrl, ofQueue]) => this.changeOn(queueUrl, ofQueue, seconds)));
  }

  private async changeOn(queueUrl: string, held: Array<Omit<Held, 'leaseExpiresAt'>>, seconds: number): Promise<void> {
    for (let start = 0; start < held.length; start += ENTRIES_PER_CALL) {
      const part = held.slice(start, start + ENTRIES_PER_CALL);
      try {
        const { Failed = [] } = await this.client.send(
          new ChangeMessageVisibilityBatchCommand({
            QueueUrl: queueUrl,
            Entries: part.map((h, i) => ({
              Id: String(i),
              ReceiptHandle: h.receiptHandle,
              VisibilityTimeout: seconds,
            })),
          }),
        );
        for (const failed of Failed) part[Number(failed.Id)]?.onFailure(`${failed.Code}: ${failed.Message}`);
      } catch (error) {
        for (const h of part) h.onFailure(error instanceof Error ? error.message : String(error));
      }
    }
  }
}

/** A visibility timeout SQS accepts: whole seconds in [0, 12 h]. */
function boundedSeconds(seconds: number): number {
  return Number.isFinite(seconds)
    ? Math.min(MAX_VISIBILITY_SECONDS, Math.max(0, Math.ceil(seconds)))
    : MAX_VISIBILITY_SECONDS;
}

type Failure = (reason: string) => void;
type Held = { receiptHandle: string; queueUrl: string | undefined; leaseExpiresAt: number; onFailure: Failure };
