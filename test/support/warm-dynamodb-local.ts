/**
 * Vitest global setup: makes DynamoDB Local's class-data archive (class-data-archive.ts) once,
 * before any test file starts DynamoDB Local, so that on a clean clone the first files start with
 * it too, and two workers do not both make it.
 */
import { jvmLaunch } from '#local/emulators/dynamodb-local';
import { ensureJava } from '#local/emulators/java';

export default async function warmDynamoDbLocal(): Promise<void> {
  ensureJava();
  await jvmLaunch();
}
