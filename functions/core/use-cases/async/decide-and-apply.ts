/**
 * The loop every async event goes through: read the run, decide (a pure function of the state),
 * make the decided write conditional on that state; when another event changed the run first,
 * read it again and decide again. Two events racing each other are so decided one after the
 * other, never both on the same state (core/async/async-run.ts).
 */
import type { AsyncAnswer, AsyncDecision, AsyncRunWrite } from '../../async/async-run.ts';
import type { AsyncRunStore, StoredAsyncRun } from '../../async/ports.ts';
import { ConflictError } from '../../errors.ts';
import type { RunKey } from '../../model.ts';

/** Rounds before giving up: each lost round means another event wrote the run in between. */
export const MAX_DECISION_ROUNDS = 8;

export interface Applied {
  answer: AsyncAnswer;
  /** The write made, when the decision made one. */
  write?: AsyncRunWrite;
}

/**
 * Decides `decide` on the run at `key` and applies its write. `decide` gets undefined for a run
 * that does not exist; whether one that is not async (`isAsync` false) may be decided on is its
 * own question (a callback may not; a cancel of a queued run may).
 */
export async function decideAndApply(
  store: AsyncRunStore,
  key: RunKey,
  decide: (state: StoredAsyncRun | undefined) => AsyncDecision | Promise<AsyncDecision>,
): Promise<Applied> {
  for (let round = 0; round < MAX_DECISION_ROUNDS; round++) {
    const state = await store.read(key);
    const decision = await decide(state);
    if (!decision.write) return { answer: decision.answer };
    if (await store.apply(key, decision.write)) return { answer: decision.answer, write: decision.write };
  }
  throw new ConflictError('the run changed too often while this request was decided; try again');
}
