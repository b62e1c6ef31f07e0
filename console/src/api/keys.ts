/** Query keys, one tree per resource, so a mutation invalidates exactly what it changed. */
export const keys = {
  jobs: ['jobs'] as const,
  jobList: (query: object) => ['jobs', 'list', query] as const,
  job: (id: string) => ['jobs', 'detail', id] as const,
  runs: (jobId: string, query: object) => ['jobs', 'detail', jobId, 'runs', query] as const,
  deadLetters: (query: object) => ['dead-letters', query] as const,
  stats: (query: object) => ['monitoring', 'stats', query] as const,
  timeseries: (query: object) => ['monitoring', 'timeseries', query] as const,
  system: ['monitoring', 'system'] as const,
  flowControl: (key: string) => ['flow-control', key] as const,
  preview: (body: object) => ['schedules', 'preview', body] as const,
  // Workflow runs sit under the workflows tree: an action on either reads both again.
  workflows: ['workflows'] as const,
  workflowList: (query: object) => ['workflows', 'list', query] as const,
  workflow: (id: string) => ['workflows', 'detail', id] as const,
  workflowRuns: (id: string, query: object) => ['workflows', 'detail', id, 'runs', query] as const,
  workflowRun: (workflowRunId: string) => ['workflows', 'run', workflowRunId] as const,
};
