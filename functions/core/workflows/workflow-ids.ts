/**
 * Workflow ids and the ids of their task items. A workflow id is `wf` and a ULID, a task item's
 * `<workflowId>v<version>t<index>`: letters and digits only, so the run ids made from them parse
 * as any run id (run-id.ts), and never a bare ULID, so no job route can reach either.
 */
const ULID = '[0-9A-HJKMNP-TV-Z]{26}';
const WORKFLOW_ID = new RegExp(`^wf${ULID}$`);
const TASK_JOB_ID = new RegExp(`^(wf${ULID})v(\\d{1,9})t(\\d{1,3})$`);

/** The workflow id made from a freshly drawn ULID. */
export function workflowIdOf(ulid: string): string {
  return `wf${ulid}`;
}

export function isWorkflowId(id: string): boolean {
  return WORKFLOW_ID.test(id);
}

/** The task item of the task at `index` (its place in the definition) of `version`. */
export function taskJobIdOf(workflowId: string, version: number, index: number): string {
  return `${workflowId}v${version}t${index}`;
}

/** The parts of a task item id, or undefined for anything that is not one. */
export function parseTaskJobId(id: string): { workflowId: string; version: number; index: number } | undefined {
  const match = TASK_JOB_ID.exec(id);
  if (!match) return undefined;
  return { workflowId: match[1] as string, version: Number(match[2]), index: Number(match[3]) };
}
