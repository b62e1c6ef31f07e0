import { describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_CONFIG, loadConfig, validateConfig } from '../../lib/config.ts';
import { CDK_JSON_CONTEXT } from './support/chronos-app.ts';

function reader(context: Record<string, unknown>) {
  return (key: string) => context[key];
}

function stageContext(block: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  return reader({ 'chronos:stages': { dev: { ...block } }, ...extra });
}

describe('loadConfig', () => {
  it('selects the dev stage by default and fills unset keys with the documented defaults', () => {
    const config = loadConfig(stageContext({}));

    expect(config).toEqual({ ...DEFAULT_CONFIG, stage: 'dev' });
    expect(config.dueShardCount).toBe(16);
    expect(config.scanHorizonSeconds).toBe(90);
  });

  it('lets the stage block override defaults', () => {
    const config = loadConfig(stageContext({ dueShardCount: 4, retainData: true }));

    expect(config.dueShardCount).toBe(4);
    expect(config.retainData).toBe(true);
  });

  it('takes early release as an object of three bounded integers, and refuses anything else', () => {
    const early = { baseLeadMs: 1_000, readyPerSecond: 500, maxLeadMs: 5_000 };
    expect(loadConfig(stageContext({ earlyRelease: early })).earlyRelease).toEqual(early);
    expect(loadConfig(stageContext({})).earlyRelease).toBeUndefined();
    expect(() => loadConfig(stageContext({ earlyRelease: { ...early, maxLeadMs: 500 } }))).toThrow(
      /earlyRelease.maxLeadMs must be an integer from 1000 to 60000/,
    );
    expect(() => loadConfig(stageContext({ earlyRelease: { ...early, lead: 1 } }))).toThrow(ConfigError);
    expect(() => loadConfig(stageContext({ earlyRelease: 3 }))).toThrow(/earlyRelease must be an object/);
  });

  it('takes single-value overrides from chronos:<key> context', () => {
    const config = loadConfig(stageContext({}, { 'chronos:alarmEmail': 'ops@example.com' }));

    expect(config.alarmEmail).toBe('ops@example.com');
  });

  it('deploys no console to LocalStack (it has no CloudFront), whatever the stage block says', () => {
    const block = { console: { enabled: true } };
    expect(loadConfig(stageContext(block)).console.enabled).toBe(true);
    expect(loadConfig(stageContext(block, { 'chronos:localstack': 'true' })).console.enabled).toBe(false);
  });

  it('rejects a stage without a block, naming the stage', () => {
    expect(() => loadConfig(stageContext({}, { 'chronos:stage': 'qa' }))).toThrow(/Unknown stage "qa"/);
  });

  it('loads every stage shipped in cdk.json', () => {
    const stages = Object.keys(CDK_JSON_CONTEXT['chronos:stages'] as object);

    for (const stage of stages) {
      const config = loadConfig(reader({ ...CDK_JSON_CONTEXT, 'chronos:stage': stage }));
      expect(config.stage).toBe(stage);
    }
    expect(stages).toEqual(expect.arrayContaining(['dev', 'prod']));
  });

  it('puts WAF on both shipped stages, prod with the larger limits (cdk.json)', () => {
    const prod = loadConfig(reader({ ...CDK_JSON_CONTEXT, 'chronos:stage': 'prod' }));
    const dev = loadConfig(reader(CDK_JSON_CONTEXT));

    expect(prod.waf).toEqual({
      enabled: true,
      rateLimitPer5MinPerToken: 6000,
      rateLimitPer5MinPerIp: 600,
      rateLimitPer5MinPerIpTotal: 30_000,
    });
    expect(dev.waf.enabled).toBe(true);
    expect(dev.waf.rateLimitPer5MinPerToken).toBeLessThan(prod.waf.rateLimitPer5MinPerToken);
  });

  it('retains data in prod and not in dev (cdk.json)', () => {
    const prod = loadConfig(reader({ ...CDK_JSON_CONTEXT, 'chronos:stage': 'prod' }));
    const dev = loadConfig(reader(CDK_JSON_CONTEXT));

    expect(prod.retainData).toBe(true);
    expect(dev.retainData).toBe(false);
  });
});

const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0b5e5c6a-8f1e-4d2a-9c3b-7a6d5e4f3a2b';

describe('validateConfig', () => {
  const valid = { ...DEFAULT_CONFIG, stage: 'dev' };

  it.each([
    [{ dueShardCount: 0 }, /dueShardCount must be an integer from 1 to 256, got 0/],
    [{ dueShardCount: 2.5 }, /dueShardCount/],
    [{ scanHorizonSeconds: 60 }, /scanHorizonSeconds must be an integer from 61/],
    [{ executorMaxConcurrency: 1 }, /executorMaxConcurrency must be an integer from 2/],
    [{ completionParallelizationFactor: 11 }, /completionParallelizationFactor/],
    [{ logRetentionDays: 10 }, /logRetentionDays must be one of 1, 3, 5, 7, 14/],
    [{ quotas: { maxActiveJobs: 0 } }, /quotas.maxActiveJobs must be an integer from 1/],
    [{ quotas: { maxJobs: 5 } }, /Unknown quota "maxJobs"/],
    [{ quotas: [] }, /quotas must be an object/],
    [
      { executorMaxConcurrency: 4, quotas: { maxConcurrentRuns: 4 } },
      /quotas.maxConcurrentRuns \(4\) must be below executorMaxConcurrency \(4\)/,
    ],
    [{ devTokenSha256: 'a'.repeat(64) }, /Unknown configuration key "devTokenSha256"/],
    [{ stage: 'Prod' }, /stage must be lower-case/],
    [{ retainData: 'yes' }, /retainData must be true or false/],
    [{ alarmEmail: 'nobody' }, /alarmEmail must be an email address/],
    [{ corsAllowOrigins: [''] }, /corsAllowOrigins must be an array of origin strings/],
    [{ apiThrottle: { rateLimit: 10 } }, /apiThrottle.burstLimit must be an integer/],
    [{ shardCount: 4 }, /Unknown configuration key "shardCount"/],
    [
      { executorMaxConcurrency: 10, executorReservedConcurrency: 5 },
      /executorReservedConcurrency \(5\) must be at least the three lanes' maximum concurrency together: executorHighMaxConcurrency \+ executorMaxConcurrency \+ executorLowMaxConcurrency = 18/,
    ],
    // Enough for the normal lane alone is not enough: every lane's event source drives the function.
    [
      { executorMaxConcurrency: 10, executorReservedConcurrency: 17 },
      /executorReservedConcurrency \(17\) must be at least .* = 18/,
    ],
    [{ executorReservedConcurrency: 0 }, /executorReservedConcurrency must be an integer from 1 to 1000, got 0/],
    [{ executorHighMaxConcurrency: 1 }, /executorHighMaxConcurrency must be an integer from 2 to 1000, got 1/],
    [{ executorLowMaxConcurrency: 1 }, /executorLowMaxConcurrency must be an integer from 2 to 1000, got 1/],
    [{ executorLowMaxConcurrency: '3' }, /executorLowMaxConcurrency must be an integer from 2 to 1000, got "3"/],
    [{ executorHighMaxConcurrency: 2.5 }, /executorHighMaxConcurrency must be an integer/],
    [{ alarms: [] }, /alarms must be an object of alarm thresholds/],
    [{ alarms: { oldestMessage: 30 } }, /Unknown alarm threshold "oldestMessage" \(known: deadLetterMessages, /],
    [{ alarms: { oldestMessageSeconds: 0 } }, /alarms.oldestMessageSeconds must be an integer from 1 to 86400, got 0/],
    [{ alarms: { startLagP99Ms: '5000' } }, /alarms.startLagP99Ms must be an integer from 1 to 3600000, got "5000"/],
    [{ alarms: { scannerSilenceMinutes: 61 } }, /alarms.scannerSilenceMinutes must be an integer from 1 to 60/],
    [{ alarms: { functionErrorRatePercent: 100 } }, /alarms.functionErrorRatePercent must be an integer from 0 to 99/],
    [{ alarms: { streamIteratorAgeMs: 500 } }, /alarms.streamIteratorAgeMs must be an integer from 1000/],
    [{ alarms: { deadLetterMessages: -1 } }, /alarms.deadLetterMessages must be an integer from 0/],
    [{ waf: true }, /waf must be an object/],
    [{ waf: { enabled: 'yes' } }, /waf.enabled must be true or false/],
    [
      { waf: { rateLimitPer5MinPerIp: 5 } },
      /waf.rateLimitPer5MinPerIp must be an integer from 10 to 2000000000, got 5/,
    ],
    [{ waf: { rateLimitPer5MinPerToken: 1.5 } }, /waf.rateLimitPer5MinPerToken must be an integer/],
    [{ waf: { ratePerToken: 100 } }, /Unknown waf key "ratePerToken" \(known: enabled, /],
    [
      { waf: { rateLimitPer5MinPerToken: 1000, rateLimitPer5MinPerIpTotal: 999 } },
      /waf.rateLimitPer5MinPerIpTotal must be an integer from 1000 to 2000000000, got 999/,
    ],
    [{ console: false }, /console must be an object of console settings/],
    [{ console: { enabled: 'no' } }, /console.enabled must be true or false/],
    [{ console: { domain: 'x.example.com' } }, /Unknown console key "domain" \(known: enabled, domainName, /],
    [
      { console: { domainName: 'console.example.com' } },
      /console.certificateArn must be the ARN of an ACM certificate/,
    ],
    [{ console: { certificateArn: CERTIFICATE } }, /console.domainName must be a host name/],
    [{ console: { domainName: 'https://console.example.com', certificateArn: CERTIFICATE } }, /console.domainName/],
    [
      { console: { domainName: 'console.example.com', certificateArn: CERTIFICATE.replace('us-east-1', 'eu-west-1') } },
      /ACM certificate in us-east-1/,
    ],
  ])('rejects %o', (change, message) => {
    expect(() => validateConfig({ ...valid, ...change })).toThrow(ConfigError);
    expect(() => validateConfig({ ...valid, ...change })).toThrow(message);
  });

  it("accepts reserved executor concurrency that covers the three lanes' maxima together", () => {
    const config = validateConfig({ ...valid, executorMaxConcurrency: 10, executorReservedConcurrency: 18 });
    expect(config.executorReservedConcurrency).toBe(18);
    expect('executorReservedConcurrency' in validateConfig(valid)).toBe(false);
  });

  it('keeps the thresholds the alarms had before they were configurable', () => {
    expect(validateConfig(valid).alarms).toEqual({
      deadLetterMessages: 0,
      oldestMessageSeconds: 5,
      startLagP99Ms: 5_000,
      scannerSilenceMinutes: 3,
      functionErrorRatePercent: 5,
      streamIteratorAgeMs: 60_000,
    });
  });

  it('fills alarm thresholds the stage leaves out with the defaults', () => {
    const config = loadConfig(stageContext({ alarms: { oldestMessageSeconds: 30, functionErrorRatePercent: 0 } }));
    expect(config.alarms).toEqual({ ...DEFAULT_CONFIG.alarms, oldestMessageSeconds: 30, functionErrorRatePercent: 0 });
  });

  it('turns WAF on by default, and fills the WAF keys a stage leaves out with the defaults', () => {
    expect(validateConfig(valid).waf).toEqual({
      enabled: true,
      rateLimitPer5MinPerToken: 3000,
      rateLimitPer5MinPerIp: 300,
      rateLimitPer5MinPerIpTotal: 15_000,
    });
    expect(validateConfig({ ...valid, waf: { enabled: false } }).waf).toEqual({
      ...DEFAULT_CONFIG.waf,
      enabled: false,
    });
  });

  it('turns the console on by default, and off when the stage says so', () => {
    expect(validateConfig(valid).console).toEqual({ enabled: true });
    expect(validateConfig({ ...valid, console: {} }).console).toEqual({ enabled: true });
    expect(validateConfig({ ...valid, console: { enabled: false } }).console).toEqual({ enabled: false });
  });

  it('takes a custom console domain with its us-east-1 certificate, the name in lower case', () => {
    const console = validateConfig({
      ...valid,
      console: { domainName: 'Console.Example.com', certificateArn: CERTIFICATE },
    }).console;
    expect(console).toEqual({ enabled: true, domainName: 'console.example.com', certificateArn: CERTIFICATE });
  });

  it('fills quotas the stage leaves out with the defaults', () => {
    const config = validateConfig({ ...valid, quotas: { minIntervalSeconds: 60 } });
    expect(config.quotas).toEqual({ ...DEFAULT_CONFIG.quotas, minIntervalSeconds: 60 });
  });
});
