/**
 * `npm run deploy:local` on LocalStack: docker-compose.yml starts every service the synthesized
 * stacks use, and the scripts pass the context that makes the stacks deployable there.
 */
import { readFileSync } from 'node:fs';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildChronosAppForProperties } from './support/chronos-app.ts';

const compose = parse(readFileSync(new URL('../../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: { localstack: { environment: string[] } };
};
const scripts = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')).scripts as Record<
  string,
  string
>;

/** LocalStack's service name for each CloudFormation namespace the stacks use. */
const SERVICE_OF: Record<string, string[]> = {
  ApiGateway: ['apigateway'],
  CloudWatch: ['cloudwatch'],
  DynamoDB: ['dynamodb'],
  IAM: ['iam'],
  KMS: ['kms'],
  Lambda: ['lambda'],
  Logs: ['logs'],
  SNS: ['sns'],
  SQS: ['sqs'],
  Scheduler: ['scheduler'],
  SecretsManager: ['secretsmanager'],
  SSM: ['ssm'],
  WAFv2: ['wafv2'],
  Events: ['events'],
  S3: ['s3'],
};
/** What a deploy needs besides the stacks' own resources: CloudFormation, the bootstrap's bucket, parameter and repository, and STS. */
const DEPLOY_MACHINERY = ['cloudformation', 's3', 'ssm', 'ecr', 'sts'];

let types: Set<string>;
let streams: boolean;
let tracing: boolean;

beforeAll(() => {
  const app = buildChronosAppForProperties({ 'chronos:localstack': 'true' });
  types = new Set();
  streams = false;
  tracing = false;
  for (const stack of [app.stateful, app.stateless]) {
    for (const resource of Object.values(Template.fromStack(stack).toJSON().Resources) as Array<{
      Type: string;
      Properties?: Record<string, unknown>;
    }>) {
      types.add(resource.Type);
      if (resource.Type === 'AWS::DynamoDB::Table' && resource.Properties?.StreamSpecification) streams = true;
      if (resource.Type === 'AWS::Lambda::Function' && resource.Properties?.TracingConfig) tracing = true;
    }
  }
}, 60_000);

function services(): string[] {
  const line = compose.services.localstack.environment.find((entry) => entry.startsWith('SERVICES='));
  return (line ?? '').replace('SERVICES=', '').split(',');
}

describe('docker-compose.yml', () => {
  it('starts every service the synthesized stacks use, and what a deploy needs', () => {
    const needed = new Set(DEPLOY_MACHINERY);
    for (const type of types) {
      const namespace = type.split('::')[1] as string;
      if (type === 'AWS::CDK::Metadata') continue;
      const mapped = SERVICE_OF[namespace];
      expect(mapped, `no LocalStack service known for ${type}`).toBeDefined();
      for (const service of mapped ?? []) needed.add(service);
    }
    if (streams) needed.add('dynamodbstreams');
    if (tracing) needed.add('xray');
    expect(needed.has('kms') && needed.has('sns') && needed.has('cloudwatch')).toBe(true);
    expect(services()).toEqual(expect.arrayContaining([...needed]));
  });
});

describe('deploy:local and destroy:local', () => {
  it('pass the LocalStack context to every cdklocal command that synthesizes', () => {
    for (const name of ['deploy:local', 'destroy:local']) {
      const commands = (scripts[name] ?? '').split('&&').map((command) => command.trim());
      expect(commands.length, name).toBeGreaterThan(0);
      for (const command of commands) {
        expect(command, name).toMatch(/^cdklocal /);
        expect(command, name).toContain('-c chronos:localstack=true');
      }
    }
    expect(scripts['deploy:local']).toContain('-c chronos:stage=dev');
  });

  it('synthesizes with that context: no WAF, and functions LocalStack runs', () => {
    expect(types.has('AWS::WAFv2::WebACL')).toBe(false);
    expect(types.has('AWS::Lambda::Function')).toBe(true);
  });
});
