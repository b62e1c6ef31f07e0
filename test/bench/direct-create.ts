/**
 * Creates jobs through the create-job use case in this process, with the same dependencies the
 * API handler uses (their AWS requests are counted like any other). For bulk setup on a small
 * machine: the API's own latency is measured on jobs created over HTTP.
 */
import type { CreateJobInput } from '#core/job-input';

/** Creates `count` jobs for `tenantId` with at most `parallelism` in flight; returns their ids in order. */
export async function createJobsDirectly(
  tenantId: string,
  count: number,
  parallelism: number,
  bodyOf: (index: number) => unknown,
): Promise<string[]> {
  // Imported here, after startLocalChronos has set the environment the wiring reads.
  const [{ createJob }, { materializeDeps, outboundRules }, { ulidIds }, { parseCreateJob }] = await Promise.all([
    import('#core/use-cases/create-job'),
    import('#handlers/wiring'),
    import('#adapters/ulid-ids'),
    import('#core/job-input'),
  ]);
  const ids = ulidIds();
  const jobIds: string[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next++;
      const now = Date.now();
      // The same outbound URL rules as the API handler (the local runtime allows its loopback targets).
      const fields = parseCreateJob(bodyOf(index) as CreateJobInput, now, outboundRules());
      jobIds[index] = (await createJob({ ...materializeDeps(), ids }, tenantId, fields, now)).jobId;
    }
  };
  await Promise.all(Array.from({ length: parallelism }, worker));
  return jobIds;
}
