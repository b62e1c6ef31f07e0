/**
 * Counts the dispatch messages the local runtime's handlers send, per run: every SendMessageBatch
 * entry (and SendMessage) whose body names a run. Registered before the runtime starts, so every
 * SQS client it makes carries it (adapters/aws-clients.ts).
 */
import { registerClientMiddleware } from '#adapters/aws-clients';

export interface DispatchSends {
  /** Messages sent for `runId` so far. */
  of(runId: string): number;
  stop(): void;
}

export function countDispatchSends(): DispatchSends {
  const sends = new Map<string, number>();
  const count = (body: string | undefined) => {
    try {
      const runId = (JSON.parse(body ?? '') as { runId?: unknown }).runId;
      if (typeof runId === 'string') sends.set(runId, (sends.get(runId) ?? 0) + 1);
    } catch {
      // not a dispatch message
    }
  };
  const stop = registerClientMiddleware((service, stack) => {
    if (service !== 'SQS') return;
    stack.add(
      // biome-ignore lint/suspicious/noExplicitAny: the middleware serves every SQS command
      (next: any, context: any) => async (args: any) => {
        if (context.commandName === 'SendMessageBatchCommand')
          for (const entry of args.input.Entries ?? []) count(entry.MessageBody);
        if (context.commandName === 'SendMessageCommand') count(args.input.MessageBody);
        return next(args);
      },
      { step: 'initialize', name: 'flowControlSendCounter' },
    );
  });
  return { of: (runId) => sends.get(runId) ?? 0, stop };
}
