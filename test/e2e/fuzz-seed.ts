/**
 * The fuzz tests' seed, pinned so a failure replays: `FUZZ_SEED=<n>` overrides it (to explore, or
 * to replay a seed a failure printed). Printed at start and again with any failure.
 */
import fc from 'fast-check';

/**
 * Any seed is as good as another, as long as the pinned run reaches every premise the fuzz tests
 * check (a 2xx from every route, runs to check). Seed 7 reached the defect the fuzzer found (a jobs
 * cursor widened to 1,098 bytes of UTF-8, accepted though DynamoDB refuses it; now pinned by
 * test/unit/adapters/cursor-key-bytes.test.ts and fuzz-checks.test.ts), until POST
 * /v1/schedules/preview and GET /v1/openapi.json joined the route table and the commands: with
 * them it no longer reached a 2xx from POST /v1/runs/{runId}/retry. Generators that change shift
 * what a seed draws: re-check this when they do. Seed 1 stopped reaching "another tenant's job is
 * a 404" once the job bodies could name a flow-control key and GET /v1/flow-control/{key} joined
 * the commands (issue #22); seed 13 reaches every premise (and schedule-preview.test.ts's).
 */
const PINNED_SEED = 13;

export function fuzzSeed(): number {
  const given = process.env.FUZZ_SEED;
  if (given === undefined || given === '') return PINNED_SEED;
  const seed = Number(given);
  if (!Number.isSafeInteger(seed)) throw new Error(`FUZZ_SEED must be an integer, not ${given}`);
  return seed;
}

/** fc.assert with the seed pinned, printed at start and prefixed to the failure. */
export async function assertSeeded<Ts extends [unknown, ...unknown[]]>(
  what: string,
  property: fc.IAsyncPropertyWithHooks<Ts>,
  parameters: fc.Parameters<Ts> = {},
): Promise<void> {
  const seed = fuzzSeed();
  console.info(`[fuzz] ${what}: seed ${seed} (replay with FUZZ_SEED=${seed})`);
  try {
    await fc.assert(property, { ...parameters, seed });
  } catch (error) {
    console.error(`[fuzz] ${what} FAILED with seed ${seed}: replay with FUZZ_SEED=${seed}`);
    if (error instanceof Error) error.message = `[fuzz seed ${seed}] ${error.message}`;
    throw error;
  }
}
