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
  preview: (body: object) => ['schedules', 'preview', body] as const,
};
