/**
 * The API's modules, named literally so that esbuild bundles them (the local runtime imports them
 * by a computed name, which a bundle cannot resolve). A route missing here fails the API's start;
 * api-modules.test.ts checks that every route is here.
 */
export const API_MODULES: Record<string, () => Promise<{ handler: unknown }>> = {
  'callback-complete': () => import('#handlers/api/callback-complete'),
  'callback-heartbeat': () => import('#handlers/api/callback-heartbeat'),
  'callback-state': () => import('#handlers/api/callback-state'),
  'cancel-job': () => import('#handlers/api/cancel-job'),
  'cancel-run': () => import('#handlers/api/cancel-run'),
  'cancel-workflow-run': () => import('#handlers/api/cancel-workflow-run'),
  'get-flow-control-key': () => import('#handlers/api/get-flow-control-key'),
  'get-job': () => import('#handlers/api/get-job'),
  'get-openapi': () => import('#handlers/api/get-openapi'),
  'get-run': () => import('#handlers/api/get-run'),
  'get-workflow-run': () => import('#handlers/api/get-workflow-run'),
  health: () => import('#handlers/api/health'),
  'list-dead-letters': () => import('#handlers/api/list-dead-letters'),
  'list-jobs': () => import('#handlers/api/list-jobs'),
  'list-runs': () => import('#handlers/api/list-runs'),
  'list-signing-secrets': () => import('#handlers/api/list-signing-secrets'),
  'list-workflow-runs': () => import('#handlers/api/list-workflow-runs'),
  'monitoring-stats': () => import('#handlers/api/monitoring-stats'),
  'monitoring-system': () => import('#handlers/api/monitoring-system'),
  'monitoring-timeseries': () => import('#handlers/api/monitoring-timeseries'),
  'pause-job': () => import('#handlers/api/pause-job'),
  'preview-schedule': () => import('#handlers/api/preview-schedule'),
  'resume-job': () => import('#handlers/api/resume-job'),
  'retry-run': () => import('#handlers/api/retry-run'),
  'retry-workflow-run': () => import('#handlers/api/retry-workflow-run'),
  'rotate-signing-secret': () => import('#handlers/api/rotate-signing-secret'),
  'trigger-job': () => import('#handlers/api/trigger-job'),
  'trigger-workflow': () => import('#handlers/api/trigger-workflow'),
  'update-job': () => import('#handlers/api/update-job'),
  // Workflow definitions.
  'create-workflow': () => import('#handlers/api/create-workflow'),
  'delete-workflow': () => import('#handlers/api/delete-workflow'),
  'get-workflow': () => import('#handlers/api/get-workflow'),
  'list-workflows': () => import('#handlers/api/list-workflows'),
  'pause-workflow': () => import('#handlers/api/pause-workflow'),
  'resume-workflow': () => import('#handlers/api/resume-workflow'),
  'update-workflow': () => import('#handlers/api/update-workflow'),
};
