/**
 * What a task key may be. The same characters and length as tenant ids
 * (tenants/manage-tenants.ts): safe in URLs, run ids (task-run-id.ts), DynamoDB keys and log
 * lines without escaping.
 */

/** Letters, digits, `_` and `-`, 1 to 64 of them. */
export const TASK_KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const MAX_TASK_KEY_LENGTH = 64;

/** Most tasks in one workflow: bounds every per-run pass (readiness, status) and the run item. */
export const MAX_WORKFLOW_TASKS = 100;

/**
 * Keys become property names wherever a workflow run is shown or stored by task (the upstream
 * body, a DynamoDB map, a JSON answer); `__proto__` is the one name a JavaScript object cannot
 * hold as an ordinary property, so it is refused rather than trusted to every later writer.
 */
export const RESERVED_TASK_KEYS: readonly string[] = ['__proto__'];

/** True for a string that may be a task key. */
export function isTaskKey(value: unknown): value is string {
  return typeof value === 'string' && TASK_KEY_PATTERN.test(value) && !RESERVED_TASK_KEYS.includes(value);
}
