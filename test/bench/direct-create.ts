/**
 * Creates jobs through the create-job use case in this process, with the same dependencies the
 * API handler uses (their AWS requests are counted like any other). For bulk setup on a small
 * machine: the API's own latency is measured on jobs created over HTTP.
 */
import type { CreateJobInput } from '#core/job-input';

export interface DirectCreateOptions {
  /**
   * false: never materialize at creation (horizon 0 for the create only), as a create made long
   * before its due time would not; the scanner does it. Default: the API's own horizon.
   */
  materializeAtCreation?: boolean;
}

/** Creates one job per call for `tenantId`, through the use case; each call answers its id and when it ran. */
export async function directCreator(
  tenantId: string,
  options: DirectCreateOptions = {},
): Promise<(body: unknown) => Promise<{ jobId: string; from: number; to: number }>> {
  // Imported here, after startLocalChronos has set the environment the wiring reads.
  const [{ createJob }, { materializeDeps, outboundRules }, { ulidIds }, { parseCreateJob }] = await Promise.all([
    import('#core/use-cases/create-job'),
    import('#handlers/wiring'),
    import('#adapters/ulid-ids'),
    import('#core/job-input'),
  ]);
  const ids = ulidIds();
  const deps = materializeDeps();
  const config = options.materializeAtCreation === false ? { ...deps.config, horizonMs: 0 } : deps.config;
  return async (body) => {
    const from = Date.now();
    // The same outbound URL rules as the API handler (the local runtime allows its loopback targets).
    const fields = parseCreateJob(body as CreateJobInput, from, outboundRules());
    const { jobId } = await createJob({ ...deps, config, ids }, tenantId, fields, from);
    return { jobId, from, to: Date.now() };
  };
}

/** Creates `count` jobs for `tenantId` with at most `parallelism` in flight; returns their ids in order. */
export async function createJobsDirectly(
  tenantId: string,
  count: number,
  parallelism: number,
  bodyOf: (index: number) => unknown,
  options: DirectCreateOptions = {},
): Promise<string[]> {
  const create = await directCreator(tenantId, options);
  const jobIds: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      jobIds[index] = (await create(bodyOf(index))).jobId;
    }
  };
  await Promise.all(Array.from({ length: parallelism }, worker));
  return jobIds;
}
