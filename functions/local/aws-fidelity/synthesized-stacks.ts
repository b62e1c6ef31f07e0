/**
 * The synthesized CDK templates of the dev stage, for the local runtime to enforce what they grant.
 * Synthesis takes seconds (importing aws-cdk-lib alone is most of one), so the result is cached
 * under node_modules/.cache/chronos/ by a hash of everything the templates are built from:
 * lib/, cdk.json, schemas/ and the route table. Written through a temporary file and a rename, so
 * two test workers synthesizing at once never read half a file.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filesUnder } from '../files-under.ts';
import type { LocalTables } from '../provision.ts';
import type { CfnTemplate } from './cfn-values.ts';

/** Where a stateful resource lives locally: the key of ProvisionedResources it is. */
export type LocalResourceRef =
  | { kind: 'table'; table: keyof LocalTables }
  | { kind: 'queue'; queue: LocalQueueName }
  | { kind: 'key'; key: 'secrets' };

/** The provisioned queues a stateful queue of the template stands for (every lane's, and the notices'). */
export type LocalQueueName =
  | 'dispatch'
  | 'deadLetter'
  | 'dispatchHigh'
  | 'deadLetterHigh'
  | 'dispatchLow'
  | 'deadLetterLow'
  | 'notices'
  | 'noticeDeadLetter';

export interface SynthesizedFunction {
  /** Logical ids in the stateless template. */
  functionLogicalId: string;
  roleLogicalId: string;
}

export interface SynthesizedStacks {
  /** The hash of the sources the templates were synthesized from. */
  sourceHash: string;
  stateful: CfnTemplate;
  stateless: CfnTemplate;
  /** By the local runtime's function name (`executor`, `api-create-job`...). */
  functions: Record<string, SynthesizedFunction>;
  /** Stateful logical id → what it is locally. */
  resources: Record<string, LocalResourceRef>;
}

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
/** What CDK builds the templates from (routes and schemas: the API's routes and models). */
/** This file too: which function maps to which role and resource is decided here. */
const SOURCES = [
  'lib',
  'cdk.json',
  'schemas',
  'functions/handlers/api/routes.ts',
  'functions/local/aws-fidelity/synthesized-stacks.ts',
];
const CACHE_DIR = join(ROOT, 'node_modules', '.cache', 'chronos');
/** Bumped when the cached shape changes. */
const CACHE_FORMAT = 1;

/** The cached stacks if the sources are unchanged, else freshly synthesized (and cached). */
export async function synthesizedStacks(): Promise<SynthesizedStacks> {
  const sourceHash = hashSources();
  const file = join(CACHE_DIR, `stacks-${sourceHash}.json`);
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as SynthesizedStacks;
  } catch {
    const stacks = await synthesize(sourceHash);
    mkdirSync(CACHE_DIR, { recursive: true });
    const temporary = `${file}.${process.pid}.${Date.now()}.tmp`;
    writeFileSync(temporary, JSON.stringify(stacks));
    renameSync(temporary, file);
    return stacks;
  }
}

/**
 * SHA-256 over the sources' paths and contents (and the CDK version), in a stable order. Besides
 * SOURCES, the function modules lib/ imports (`#adapters/...`: index names, environment names,
 * limits) count too: an index renamed there changes the policies.
 */
export function hashSources(root: string = ROOT): string {
  const hash = createHash('sha256').update(`format ${CACHE_FORMAT}\n`);
  const cdkPackage = join(root, 'node_modules', 'aws-cdk-lib', 'package.json');
  hash.update(`aws-cdk-lib ${JSON.parse(readFileSync(cdkPackage, 'utf8')).version}\n`);
  const sources = SOURCES.flatMap((source) => filesUnder(join(root, source)));
  const imported = sources.filter((file) => file.endsWith('.ts')).flatMap((file) => functionImports(root, file));
  for (const file of [...new Set([...sources, ...imported])].sort()) {
    hash.update(`${relative(root, file)}\n`).update(readFileSync(file));
  }
  return hash.digest('hex').slice(0, 32);
}

/** The files under functions/ that `file` imports through the package's `#core/`, `#adapters/`, `#handlers/` aliases. */
function functionImports(root: string, file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '#(core|adapters|handlers)\/([^']+)'/g)].map(([, dir, path]) =>
    join(root, 'functions', dir as string, `${path}.ts`),
  );
}

/**
 * Synthesizes the stage `dev` (the one `npm start` stands for) as the infra tests do for
 * properties: no esbuild bundling and no cdk-nag, neither of which changes a policy.
 */
async function synthesize(sourceHash: string): Promise<SynthesizedStacks> {
  const { createChronosApp } = await import('../../../lib/app.ts');
  const { Stack } = await import('aws-cdk-lib');
  const cdkJson = JSON.parse(readFileSync(join(ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  const context = { ...cdkJson.context, 'chronos:stage': 'dev', 'aws:cdk:bundling-stacks': [] };
  const { app, stateful, stateless } = createChronosApp({ context }, { nag: false });
  const assembly = app.synth();
  const template = (stack: { artifactId: string }) =>
    assembly.getStackArtifact(stack.artifactId).template as CfnTemplate;
  // biome-ignore lint/suspicious/noExplicitAny: construct or its default child, as Stack.getLogicalId takes it
  const logicalId = (construct: any) => Stack.of(construct).getLogicalId(construct.node.defaultChild ?? construct);
  const functions: Record<string, SynthesizedFunction> = {};
  const add = (name: string, fn: { executionRole: unknown }) => {
    functions[name] = { functionLogicalId: logicalId(fn), roleLogicalId: logicalId(fn.executionRole) };
  };
  for (const [handler, fn] of stateless.apiHandlers.functions) add(`api-${handler}`, fn);
  add('authorizer', stateless.authorizer.function);
  add('scanner', stateless.scanner.function);
  add('executor', stateless.executor.function);
  add('completion', stateless.completion.function);
  add('dead-letter', stateless.deadLetters.function);
  add('notifier', stateless.notifier.function);
  add('stream-failures', stateless.streamFailures.function);
  const resources: Record<string, LocalResourceRef> = {
    [logicalId(stateful.jobsTable)]: { kind: 'table', table: 'jobs' },
    [logicalId(stateful.runsTable)]: { kind: 'table', table: 'runs' },
    [logicalId(stateful.workflowRunsTable)]: { kind: 'table', table: 'workflowRuns' },
    [logicalId(stateful.metricsTable)]: { kind: 'table', table: 'metrics' },
    [logicalId(stateful.tenantsTable)]: { kind: 'table', table: 'tenants' },
    // Each priority lane's queues: a grant on one lane's queue is a grant on that lane's local queue only.
    [logicalId(stateful.dispatchLanes.normal.queue)]: { kind: 'queue', queue: 'dispatch' },
    [logicalId(stateful.dispatchLanes.normal.deadLetterQueue)]: { kind: 'queue', queue: 'deadLetter' },
    [logicalId(stateful.dispatchLanes.high.queue)]: { kind: 'queue', queue: 'dispatchHigh' },
    [logicalId(stateful.dispatchLanes.high.deadLetterQueue)]: { kind: 'queue', queue: 'deadLetterHigh' },
    [logicalId(stateful.dispatchLanes.low.queue)]: { kind: 'queue', queue: 'dispatchLow' },
    [logicalId(stateful.dispatchLanes.low.deadLetterQueue)]: { kind: 'queue', queue: 'deadLetterLow' },
    [logicalId(stateful.failureNoticeQueue)]: { kind: 'queue', queue: 'notices' },
    [logicalId(stateful.failureNoticeDeadLetterQueue)]: { kind: 'queue', queue: 'noticeDeadLetter' },
    [logicalId(stateful.secretsKey)]: { kind: 'key', key: 'secrets' },
  };
  return { sourceHash, stateful: template(stateful), stateless: template(stateless), functions, resources };
}
