/** What the workflow-run use cases need: the workflow-run store, the runs and jobs they start and read, the queue. */
import type { FailureNotices } from '../../notifications/failure-notice.ts';
import type { JobRepository, RunDispatcher, RunRepository } from '../../ports.ts';
import type { WorkflowRunStore } from '../../workflows/ports.ts';

export interface WorkflowRunDeps {
  workflowRuns: WorkflowRunStore;
  runs: Pick<RunRepository, 'createIfAbsent' | 'get' | 'discardQueued'>;
  /** Task items (a task's own body, for upstream input) and the head's overlap marker. */
  jobs: Pick<JobRepository, 'get' | 'takeInFlight' | 'releaseInFlight'>;
  dispatcher: RunDispatcher;
  /** The notifier's queue: a workflow run that ends FAILED is notified to its onFailure URL. */
  notices?: FailureNotices;
  config: { retentionDays: number };
}
