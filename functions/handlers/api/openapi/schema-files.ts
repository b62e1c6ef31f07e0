/**
 * Every JSON Schema under schemas/, by file name: imported statically so the API function's bundle
 * carries them (the handler reads no file). A test fails when a file there is missing here.
 */
import asyncSettings from '#schemas/async-settings.json' with { type: 'json' };
import callbackComplete from '#schemas/callback-complete.json' with { type: 'json' };
import callbackHeartbeat from '#schemas/callback-heartbeat.json' with { type: 'json' };
import callbackHeartbeatAnswer from '#schemas/callback-heartbeat-answer.json' with { type: 'json' };
import callbackState from '#schemas/callback-state.json' with { type: 'json' };
import createJob from '#schemas/create-job.json' with { type: 'json' };
import createWorkflow from '#schemas/create-workflow.json' with { type: 'json' };
import error from '#schemas/error.json' with { type: 'json' };
import flowControlKey from '#schemas/flow-control-key.json' with { type: 'json' };
import health from '#schemas/health.json' with { type: 'json' };
import job from '#schemas/job.json' with { type: 'json' };
import jobPage from '#schemas/job-page.json' with { type: 'json' };
import monitoringStats from '#schemas/monitoring-stats.json' with { type: 'json' };
import monitoringSystem from '#schemas/monitoring-system.json' with { type: 'json' };
import monitoringTimeseries from '#schemas/monitoring-timeseries.json' with { type: 'json' };
import openApiDocument from '#schemas/openapi-document.json' with { type: 'json' };
import previewSchedule from '#schemas/preview-schedule.json' with { type: 'json' };
import rotateSigningSecret from '#schemas/rotate-signing-secret.json' with { type: 'json' };
import run from '#schemas/run.json' with { type: 'json' };
import runPage from '#schemas/run-page.json' with { type: 'json' };
import scheduleOccurrences from '#schemas/schedule-occurrences.json' with { type: 'json' };
import signingSecret from '#schemas/signing-secret.json' with { type: 'json' };
import signingSecretList from '#schemas/signing-secret-list.json' with { type: 'json' };
import updateJob from '#schemas/update-job.json' with { type: 'json' };
import updateWorkflow from '#schemas/update-workflow.json' with { type: 'json' };
import workflow from '#schemas/workflow.json' with { type: 'json' };
import workflowPage from '#schemas/workflow-page.json' with { type: 'json' };
import workflowRun from '#schemas/workflow-run.json' with { type: 'json' };
import workflowRunPage from '#schemas/workflow-run-page.json' with { type: 'json' };
import workflowRunSummary from '#schemas/workflow-run-summary.json' with { type: 'json' };

export type JsonSchema = Record<string, unknown>;

export const SCHEMA_FILES: Readonly<Record<string, JsonSchema>> = {
  'async-settings.json': asyncSettings,
  'callback-complete.json': callbackComplete,
  'callback-heartbeat.json': callbackHeartbeat,
  'callback-heartbeat-answer.json': callbackHeartbeatAnswer,
  'callback-state.json': callbackState,
  'create-job.json': createJob,
  'create-workflow.json': createWorkflow,
  'error.json': error,
  'health.json': health,
  'job.json': job,
  'job-page.json': jobPage,
  'monitoring-stats.json': monitoringStats,
  'monitoring-system.json': monitoringSystem,
  'monitoring-timeseries.json': monitoringTimeseries,
  'openapi-document.json': openApiDocument,
  'preview-schedule.json': previewSchedule,
  'rotate-signing-secret.json': rotateSigningSecret,
  'run.json': run,
  'run-page.json': runPage,
  'schedule-occurrences.json': scheduleOccurrences,
  'signing-secret.json': signingSecret,
  'signing-secret-list.json': signingSecretList,
  'update-job.json': updateJob,
  'workflow-run.json': workflowRun,
  'flow-control-key.json': flowControlKey,
  'workflow-run-page.json': workflowRunPage,
  'workflow-run-summary.json': workflowRunSummary,
  'update-workflow.json': updateWorkflow,
  'workflow.json': workflow,
  'workflow-page.json': workflowPage,
};
