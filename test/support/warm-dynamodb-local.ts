/**
 * Vitest global setup: starts making DynamoDB Local's class-data archive (class-data-archive.ts),
 * about ten seconds on a clean clone, before any test file starts DynamoDB Local, so that two
 * workers do not both make it. Not awaited here: it runs beside the synthesis and the console's
 * build of the setups listed after this one, and a file that starts DynamoDB Local before it is
 * done starts without the archive (it finds the archive's folder still being filled).
 */
import { jvmLaunch } from '#local/emulators/dynamodb-local';
import { ensureJava } from '#local/emulators/java';

export default function warmDynamoDbLocal(): () => Promise<void> {
  ensureJava();
  // The archive only saves time: a failure to make it leaves the plain start, and is not the run's.
  const made = jvmLaunch().catch(() => undefined);
  return async () => {
    await made;
  };
}
