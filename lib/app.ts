/**
 * Builds the whole Chronos app: both stacks of the selected stage, checked by the cdk-nag
 * AwsSolutions and Serverless packs. bin/chronos.ts and the infra tests both call this.
 */
import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { type ChronosConfig, loadConfig } from './config.ts';
import { StatefulStack } from './stacks/stateful-stack.ts';
import { StatelessStack } from './stacks/stateless-stack.ts';

export interface ChronosApp {
  app: App;
  config: ChronosConfig;
  stateful: StatefulStack;
  stateless: StatelessStack;
}

export interface ChronosAppOptions {
  /** Run the cdk-nag packs at synthesis (default true; property-only tests turn them off for speed). */
  nag?: boolean;
}

/** Creates the app; `appProps.context` overrides cdk.json (tests pass the stage blocks there). */
export function createChronosApp(appProps: AppProps = {}, options: ChronosAppOptions = {}): ChronosApp {
  const app = new App(appProps);
  const config = loadConfig((key) => app.node.tryGetContext(key));
  // Without credentials these are undefined and the stacks stay environment-agnostic.
  const env = { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION };
  const prefix = `Chronos-${config.stage}`;
  const stateful = new StatefulStack(app, `${prefix}-Stateful`, {
    env,
    config,
    description: `Chronos ${config.stage}: tables and queues`,
    terminationProtection: config.retainData,
  });
  const stateless = new StatelessStack(app, `${prefix}-Stateless`, {
    env,
    config,
    description: `Chronos ${config.stage}: functions, API and schedule`,
    jobsTable: stateful.jobsTable,
    runsTable: stateful.runsTable,
    workflowRunsTable: stateful.workflowRunsTable,
    metricsTable: stateful.metricsTable,
    tenantsTable: stateful.tenantsTable,
    secretsKey: stateful.secretsKey,
    dispatchLanes: stateful.dispatchLanes,
    failureNoticeQueue: stateful.failureNoticeQueue,
    failureNoticeDeadLetterQueue: stateful.failureNoticeDeadLetterQueue,
  });
  stateless.addStackDependency(stateful);
  if (options.nag ?? true) Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return { app, config, stateful, stateless };
}
