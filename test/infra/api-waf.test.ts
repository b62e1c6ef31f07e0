/**
 * The API stage sits behind a WAFv2 web ACL (lib/constructs/api-waf.ts) whose rate limits come
 * from the stage config: managed rule sets, a budget per token and one per address for requests
 * without a token, 429 in the Chronos error shape, logs without tokens.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Match, Template } from 'aws-cdk-lib/assertions';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import type { ChronosApp } from '../../lib/app.ts';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lib/constructs/api-waf.ts';
import {
  buildChronosApp,
  buildChronosAppForProperties,
  CDK_JSON_CONTEXT,
  logicalIdOf,
  SKIP_BUNDLING,
} from './support/chronos-app.ts';
import { countedBy } from './support/waf-rules.ts';

const STAGES = CDK_JSON_CONTEXT['chronos:stages'] as Record<string, Record<string, unknown>>;

const ADMIN_SHA256 = 'ab'.repeat(32);

let dev: ChronosApp;
let template: Template;

beforeAll(() => {
  dev = buildChronosAppForProperties({ 'chronos:stage': 'dev', 'chronos:adminTokenSha256': ADMIN_SHA256 });
  template = Template.fromStack(dev.stateless);
}, 60_000);

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON is checked field by field
type Json = any;

function webAclOf(t: Template): Json {
  const acls = Object.values(t.findResources('AWS::WAFv2::WebACL'));
  expect(acls).toHaveLength(1);
  return (acls[0] as Json).Properties;
}

/** Only requests that carry no Authorization header at all (a missing header has no size). */
const WITHOUT_TOKEN = {
  NotStatement: {
    Statement: {
      SizeConstraintStatement: {
        FieldToMatch: { SingleHeader: { Name: 'authorization' } },
        ComparisonOperator: 'GT',
        Size: 0,
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    },
  },
};

/** Requests to any path but the callback routes' (their token is in the path: their own budget). */
const NOT_CALLBACK = {
  NotStatement: {
    Statement: {
      ByteMatchStatement: {
        FieldToMatch: { UriPath: {} },
        PositionalConstraint: 'CONTAINS',
        SearchString: '/v1/callbacks/',
        TextTransformations: [{ Priority: 0, Type: 'NONE' }],
      },
    },
  },
};

/** The statement the web ACL tells the console's distribution by: its secret header, exactly. */
function throughEdge(): Json {
  const secret = dev.stateless.edgeSecret;
  if (!secret) throw new Error('the dev stage has no edge secret');
  return {
    ByteMatchStatement: {
      FieldToMatch: { SingleHeader: { Name: EDGE_SECRET_HEADER } },
      PositionalConstraint: 'EXACTLY',
      SearchString: dev.stateless.resolve(secret.value),
      TextTransformations: [{ Priority: 0, Type: 'NONE' }],
    },
  };
}
const notThroughEdge = () => ({ NotStatement: { Statement: throughEdge() } });

function ruleNamed(acl: Json, name: string): Json {
  const rule = acl.Rules.find((r: Json) => r.Name === name);
  expect(rule, name).toBeDefined();
  return rule;
}

describe('WAF web ACL (dev, as cdk.json ships it)', () => {
  it('is regional, allows by default and runs the AWS common and known-bad-inputs rule sets first', () => {
    const acl = webAclOf(template);
    expect(acl.Scope).toBe('REGIONAL');
    expect(acl.DefaultAction).toEqual({ Allow: {} });
    const managed = acl.Rules.filter((r: Json) => r.Statement.ManagedRuleGroupStatement);
    expect(managed.map((r: Json) => [r.Statement.ManagedRuleGroupStatement.VendorName, r.Name])).toEqual([
      ['AWS', 'AWSManagedRulesCommonRuleSet'],
      ['AWS', 'AWSManagedRulesKnownBadInputsRuleSet'],
    ]);
    for (const rule of managed) expect(rule.OverrideAction).toEqual({ None: {} });
    const rateRules = acl.Rules.filter((r: Json) => r.Statement.RateBasedStatement);
    expect(Math.max(...managed.map((r: Json) => r.Priority))).toBeLessThan(
      Math.min(...rateRules.map((r: Json) => r.Priority)),
    );
  });

  it('only counts the common rule set body-size rule, which would block payloads the API accepts', () => {
    const common = ruleNamed(webAclOf(template), 'AWSManagedRulesCommonRuleSet');
    expect(common.Statement.ManagedRuleGroupStatement.RuleActionOverrides).toEqual([
      { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
    ]);
  });

  it('limits each Authorization header value to the stage limit per five minutes', () => {
    const rule = ruleNamed(webAclOf(template), 'RateLimitPerToken');
    expect(rule.Statement.RateBasedStatement).toEqual({
      Limit: dev.config.waf.rateLimitPer5MinPerToken,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [{ Header: { Name: 'authorization', TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
    });
    expect(dev.config.waf.rateLimitPer5MinPerToken).toBe(1500);
  });

  it('limits each source IP of direct requests (no edge secret) without an Authorization header to the stage limit', () => {
    const rule = ruleNamed(webAclOf(template), 'RateLimitPerIpWithoutToken');
    const statement = rule.Statement.RateBasedStatement;
    expect(statement).toMatchObject({ Limit: 300, AggregateKeyType: 'IP', EvaluationWindowSec: 300 });
    expect(statement.ScopeDownStatement).toEqual({
      AndStatement: { Statements: [WITHOUT_TOKEN, NOT_CALLBACK, notThroughEdge()] },
    });
  });

  it("caps each source IP over every direct request, tokens or not, above one token's budget", () => {
    const rule = ruleNamed(webAclOf(template), 'RateLimitPerIpTotal');
    expect(rule.Statement.RateBasedStatement).toEqual({
      Limit: dev.config.waf.rateLimitPer5MinPerIpTotal,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'IP',
      ScopeDownStatement: notThroughEdge(),
    });
    expect(dev.config.waf.rateLimitPer5MinPerIpTotal).toBe(7500);
    expect(dev.config.waf.rateLimitPer5MinPerIpTotal).toBeGreaterThan(dev.config.waf.rateLimitPer5MinPerToken);
  });

  it("limits requests through the console's distribution (the edge secret) per viewer address, with the same limits", () => {
    const acl = webAclOf(template);
    const viewer = { HeaderName: VIEWER_ADDRESS_HEADER, FallbackBehavior: 'NO_MATCH' };
    expect(ruleNamed(acl, 'RateLimitPerViewerWithoutToken').Statement.RateBasedStatement).toEqual({
      Limit: dev.config.waf.rateLimitPer5MinPerIp,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'FORWARDED_IP',
      ForwardedIPConfig: viewer,
      ScopeDownStatement: { AndStatement: { Statements: [WITHOUT_TOKEN, NOT_CALLBACK, throughEdge()] } },
    });
    expect(ruleNamed(acl, 'RateLimitPerViewerTotal').Statement.RateBasedStatement).toEqual({
      Limit: dev.config.waf.rateLimitPer5MinPerIpTotal,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'FORWARDED_IP',
      ForwardedIPConfig: viewer,
      ScopeDownStatement: throughEdge(),
    });
  });

  it('matches the edge secret as a value Secrets Manager generated, resolved at deploy: never a literal in the template', () => {
    const secret = dev.stateless.edgeSecret?.secret;
    if (!secret) throw new Error('the dev stage has no edge secret');
    const id = logicalIdOf(secret);
    expect(template.toJSON().Resources[id].Properties.GenerateSecretString).toMatchObject({
      PasswordLength: 48,
      ExcludePunctuation: true,
    });
    expect(throughEdge().ByteMatchStatement.SearchString).toEqual({
      'Fn::Join': ['', ['{{resolve:secretsmanager:', { Ref: id }, ':SecretString:::}}']],
    });
  });

  it('answers a rate-limited caller 429 with Retry-After, in the Chronos error shape', () => {
    const acl = webAclOf(template);
    const rateRules = acl.Rules.filter((r: Json) => r.Statement.RateBasedStatement).map((r: Json) => r.Name);
    expect(rateRules).toEqual([
      'RateLimitPerToken',
      'RateLimitPerIpWithoutToken',
      'RateLimitPerIpTotal',
      'RateLimitPerViewerWithoutToken',
      'RateLimitPerViewerTotal',
      'RateLimitPerCallbackToken',
    ]);
    for (const name of rateRules) {
      const block = ruleNamed(acl, name).Action.Block.CustomResponse;
      expect(block.ResponseCode).toBe(429);
      expect(block.ResponseHeaders).toEqual([{ Name: 'Retry-After', Value: '60' }]);
      const body = acl.CustomResponseBodies[block.CustomResponseBodyKey];
      expect(body.ContentType).toBe('APPLICATION_JSON');
      expect(JSON.parse(body.Content)).toEqual({
        error: { code: 'RATE_LIMITED', message: expect.any(String), details: [] },
      });
    }
  });

  it('is associated with the API stage', () => {
    const stageId = logicalIdOf(dev.stateless.api.api.deploymentStage);
    const apiId = logicalIdOf(dev.stateless.api.api);
    const associations = Object.values(template.findResources('AWS::WAFv2::WebACLAssociation')) as Json[];
    expect(associations).toHaveLength(1);
    const association = associations[0].Properties;
    const arn = JSON.stringify(association.ResourceArn);
    expect(arn).toContain(`"Ref":"${apiId}"`);
    expect(arn).toContain(`/stages/`);
    expect(arn).toContain(`"Ref":"${stageId}"`);
    expect(association.WebACLArn).toEqual({
      'Fn::GetAtt': [logicalIdOf(dev.stateless.api.waf?.webAcl as never), 'Arn'],
    });
  });

  it('logs only blocked and counted requests, to an aws-waf-logs- group, with tokens and the edge secret redacted', () => {
    const logGroup = dev.stateless.api.waf?.logs;
    expect(logGroup).toBeDefined();
    template.hasResourceProperties('AWS::Logs::LogGroup', {
      LogGroupName: 'aws-waf-logs-chronos-dev-api',
      RetentionInDays: dev.config.logRetentionDays,
    });
    const configs = Object.values(template.findResources('AWS::WAFv2::LoggingConfiguration')) as Json[];
    expect(configs).toHaveLength(1);
    const logging = configs[0].Properties;
    expect(logging.RedactedFields).toEqual([
      { SingleHeader: { Name: 'authorization' } },
      { SingleHeader: { Name: EDGE_SECRET_HEADER } },
    ]);
    expect(JSON.stringify(logging.LogDestinationConfigs)).toContain('log-group:');
    expect(JSON.stringify(logging.LogDestinationConfigs)).not.toContain(':*');
    expect(JSON.stringify(logging.LogDestinationConfigs)).toContain(logicalIdOf(logGroup as never));
    expect(logging.LoggingFilter.DefaultBehavior).toBe('DROP');
    expect(logging.LoggingFilter.Filters).toEqual([
      {
        Behavior: 'KEEP',
        Requirement: 'MEETS_ANY',
        Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
      },
    ]);
  });

  it('samples no request on any rule: sampled requests would show tokens and the edge secret unredacted', () => {
    const acl = Object.values(template.findResources('AWS::WAFv2::WebACL'))[0] as Json;
    const configs = [
      acl.Properties.VisibilityConfig,
      ...acl.Properties.Rules.map((rule: Json) => rule.VisibilityConfig),
    ];
    expect(configs.length).toBeGreaterThan(1);
    for (const config of configs) expect(config.SampledRequestsEnabled).toBe(false);
  });
});

describe('which budget a request spends: through the console distribution or direct', () => {
  const EDGE = '130.176.0.10';
  const TOKEN = 'Bearer chr_tenant-a';

  function aclRules(): Json[] {
    return webAclOf(template).Rules;
  }

  /** The headers the distribution's /v1 origin adds to every API request (its custom origin headers). */
  function edgeHeaders(): Record<string, unknown> {
    const site = dev.stateless.console;
    if (!site) throw new Error('the dev stage has no console');
    const config = template.toJSON().Resources[logicalIdOf(site.distribution)].Properties.DistributionConfig;
    const api = config.Origins.find((o: Json) => o.OriginPath === `/${dev.config.stage}`);
    return Object.fromEntries(
      (api.OriginCustomHeaders ?? []).map((h: Json) => [String(h.HeaderName).toLowerCase(), h.HeaderValue]),
    );
  }

  /** A request as the distribution sends it: from an edge address, the viewer's address written by its function. */
  const throughConsole = (viewer: string, headers: Record<string, unknown> = {}) => ({
    sourceIp: EDGE,
    headers: { ...headers, [VIEWER_ADDRESS_HEADER]: viewer, ...edgeHeaders() },
  });

  it("counts two console viewers behind one CloudFront edge apart, never in the edge address's budget", () => {
    for (const viewer of ['198.51.100.7', '203.0.113.9']) {
      expect(countedBy(aclRules(), throughConsole(viewer))).toEqual([
        { rule: 'RateLimitPerViewerWithoutToken', key: `forwarded:${viewer}` },
        { rule: 'RateLimitPerViewerTotal', key: `forwarded:${viewer}` },
      ]);
    }
  });

  it("counts a console request with a token in the token's budget and its viewer's ceiling", () => {
    expect(countedBy(aclRules(), throughConsole('198.51.100.7', { authorization: TOKEN }))).toEqual([
      { rule: 'RateLimitPerToken', key: `header:${TOKEN}` },
      { rule: 'RateLimitPerViewerTotal', key: 'forwarded:198.51.100.7' },
    ]);
  });

  it('counts a direct request by its source IP, whatever viewer address or wrong edge secret it sends', () => {
    const secret = JSON.stringify(edgeHeaders()[EDGE_SECRET_HEADER]);
    const forgeries: Array<Record<string, unknown>> = [
      {},
      { [VIEWER_ADDRESS_HEADER]: '10.0.0.1' },
      { [VIEWER_ADDRESS_HEADER]: '10.0.0.1', [EDGE_SECRET_HEADER]: 'guess' },
      { [VIEWER_ADDRESS_HEADER]: '10.0.0.1', [EDGE_SECRET_HEADER]: '' },
      { [VIEWER_ADDRESS_HEADER]: '10.0.0.1', [EDGE_SECRET_HEADER]: `${secret}x` },
      { [VIEWER_ADDRESS_HEADER]: '10.0.0.1', [EDGE_SECRET_HEADER]: ` ${secret}` },
      { 'x-forwarded-for': '10.0.0.1, 192.0.2.44' },
    ];
    for (const headers of forgeries) {
      const direct = { sourceIp: '192.0.2.44', headers };
      expect(countedBy(aclRules(), direct), JSON.stringify(headers)).toEqual([
        { rule: 'RateLimitPerIpWithoutToken', key: 'ip:192.0.2.44' },
        { rule: 'RateLimitPerIpTotal', key: 'ip:192.0.2.44' },
      ]);
      expect(countedBy(aclRules(), { sourceIp: '192.0.2.44', headers: { ...headers, authorization: TOKEN } })).toEqual([
        { rule: 'RateLimitPerToken', key: `header:${TOKEN}` },
        { rule: 'RateLimitPerIpTotal', key: 'ip:192.0.2.44' },
      ]);
    }
  });

  it('puts every request under exactly one ceiling, keyed by the viewer only with the exact edge secret', () => {
    const secretHeader = fc.constantFrom<'none' | 'right' | 'wrong' | 'empty'>('none', 'right', 'wrong', 'empty');
    const address = fc.oneof(fc.ipV4(), fc.ipV6());
    fc.assert(
      fc.property(
        secretHeader,
        address,
        address,
        fc.option(fc.string({ minLength: 1 })),
        (edge, source, viewer, token) => {
          const headers: Record<string, unknown> = { [VIEWER_ADDRESS_HEADER]: viewer };
          if (token !== null) headers.authorization = token;
          if (edge === 'right') Object.assign(headers, edgeHeaders());
          if (edge === 'wrong') headers[EDGE_SECRET_HEADER] = 'not-the-secret';
          if (edge === 'empty') headers[EDGE_SECRET_HEADER] = '';
          const counted = countedBy(aclRules(), { sourceIp: source, headers });
          const ceilings = counted.filter((c) => c.rule.endsWith('Total'));
          expect(ceilings).toEqual([
            edge === 'right'
              ? { rule: 'RateLimitPerViewerTotal', key: `forwarded:${viewer}` }
              : { rule: 'RateLimitPerIpTotal', key: `ip:${source}` },
          ]);
          // Without a token, exactly one per-caller budget too; with one, the token's budget instead.
          const perCaller = counted.filter((c) => c.rule.endsWith('WithoutToken'));
          expect(perCaller).toHaveLength(token === null ? 1 : 0);
          expect(counted.some((c) => c.rule === 'RateLimitPerToken')).toBe(token !== null);
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('the callback routes (their token in the path, no Authorization header)', () => {
  const callback = (token: string, route = '/heartbeat') => ({
    sourceIp: '192.0.2.44',
    headers: {},
    path: `/dev/v1/callbacks/${token}${route}`,
  });

  it("count each callback path in its own budget and the address's ceiling, never the per-address budget without a token", () => {
    const rules = webAclOf(template).Rules;
    for (const token of ['AQAB-token-one', 'AQAB-token-two']) {
      expect(countedBy(rules, callback(token))).toEqual([
        { rule: 'RateLimitPerIpTotal', key: 'ip:192.0.2.44' },
        { rule: 'RateLimitPerCallbackToken', key: `path:/dev/v1/callbacks/${token}/heartbeat` },
      ]);
    }
    // Any other request without a token is still in the address's budget, and no callback budget.
    expect(countedBy(rules, { sourceIp: '192.0.2.44', headers: {}, path: '/dev/v1/health' })).toEqual([
      { rule: 'RateLimitPerIpWithoutToken', key: 'ip:192.0.2.44' },
      { rule: 'RateLimitPerIpTotal', key: 'ip:192.0.2.44' },
    ]);
  });

  it("limit each callback path to a token's budget per five minutes", () => {
    const rule = ruleNamed(webAclOf(template), 'RateLimitPerCallbackToken');
    expect(rule.Statement.RateBasedStatement).toEqual({
      Limit: dev.config.waf.rateLimitPer5MinPerToken,
      EvaluationWindowSec: 300,
      AggregateKeyType: 'CUSTOM_KEYS',
      CustomKeys: [{ UriPath: { TextTransformations: [{ Priority: 0, Type: 'NONE' }] } }],
      ScopeDownStatement: NOT_CALLBACK.NotStatement.Statement,
    });
    // A worker heartbeating every 5 s sends 60 per five minutes on its path.
    expect(dev.config.waf.rateLimitPer5MinPerToken).toBeGreaterThan(60);
  });
});

describe('a stage without the console (no distribution in front of the API)', () => {
  let acl: Json;
  let off: ChronosApp;

  beforeAll(() => {
    off = buildChronosAppForProperties({
      'chronos:stage': 'dev',
      'chronos:stages': { ...STAGES, dev: { ...STAGES.dev, console: { enabled: false } } },
    });
    acl = webAclOf(Template.fromStack(off.stateless));
  }, 60_000);

  it('has no edge secret and limits every request per source IP, as before the console', () => {
    expect(off.stateless.edgeSecret).toBeUndefined();
    expect(Template.fromStack(off.stateless).findResources('AWS::SecretsManager::Secret')).toEqual({});
    expect(acl.Rules.filter((r: Json) => r.Statement.RateBasedStatement).map((r: Json) => r.Name)).toEqual([
      'RateLimitPerToken',
      'RateLimitPerIpWithoutToken',
      'RateLimitPerIpTotal',
      'RateLimitPerCallbackToken',
    ]);
    expect(ruleNamed(acl, 'RateLimitPerIpWithoutToken').Statement.RateBasedStatement.ScopeDownStatement).toEqual({
      AndStatement: { Statements: [WITHOUT_TOKEN, NOT_CALLBACK] },
    });
    expect(ruleNamed(acl, 'RateLimitPerIpTotal').Statement.RateBasedStatement.ScopeDownStatement).toBeUndefined();
    // Whatever a caller claims, its source IP is its budget.
    const claimed = { [VIEWER_ADDRESS_HEADER]: '10.0.0.1', [EDGE_SECRET_HEADER]: 'anything' };
    expect(countedBy(acl.Rules, { sourceIp: '192.0.2.44', headers: claimed })).toEqual([
      { rule: 'RateLimitPerIpWithoutToken', key: 'ip:192.0.2.44' },
      { rule: 'RateLimitPerIpTotal', key: 'ip:192.0.2.44' },
    ]);
  });
});

describe('WAF configuration per stage', () => {
  it('takes the prod limits from cdk.json', () => {
    const prod = buildChronosAppForProperties({ 'chronos:stage': 'prod' });
    const acl = webAclOf(Template.fromStack(prod.stateless));
    expect(ruleNamed(acl, 'RateLimitPerToken').Statement.RateBasedStatement.Limit).toBe(6000);
    expect(ruleNamed(acl, 'RateLimitPerIpWithoutToken').Statement.RateBasedStatement.Limit).toBe(600);
    expect(ruleNamed(acl, 'RateLimitPerIpTotal').Statement.RateBasedStatement.Limit).toBe(30_000);
  }, 60_000);

  it('leaves a stage that turns WAF off without a web ACL, and says why to cdk-nag (APIG3)', () => {
    const app = buildChronosApp(
      { ...SKIP_BUNDLING, 'chronos:stages': { dev: { waf: { enabled: false } } } },
      { nag: true },
    );
    const off = Template.fromStack(app.stateless);
    expect(off.findResources('AWS::WAFv2::WebACL')).toEqual({});
    expect(off.findResources('AWS::WAFv2::WebACLAssociation')).toEqual({});
    expect(app.stateless.api.waf).toBeUndefined();

    const assembly = app.app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'));
    const apig3 = report.pluginReports
      .flatMap((r: Json) => r.suppressedViolations ?? [])
      .filter((s: Json) => s.ruleName === 'AwsSolutions-APIG3');
    expect(apig3).toHaveLength(1);
    expect(apig3[0].reason).toMatch(/waf\.enabled false/);
  }, 90_000);
});

describe('the admin token hash', () => {
  it('reaches the authorizer and the health route only', () => {
    const resources = template.toJSON().Resources as Record<string, Json>;
    const holders = Object.entries(resources)
      .filter(([, r]) => r.Type === 'AWS::Lambda::Function')
      .filter(([, r]) => r.Properties.Environment?.Variables?.[OBSERVABILITY_ENV.adminTokenSha256] !== undefined)
      .map(([id, r]) => [id, r.Properties.Environment.Variables[OBSERVABILITY_ENV.adminTokenSha256]]);
    expect(holders.sort()).toEqual(
      [
        [logicalIdOf(dev.stateless.authorizer.function), ADMIN_SHA256],
        [logicalIdOf(dev.stateless.apiHandlers.functions.get('health') as never), ADMIN_SHA256],
      ].sort(),
    );
  });

  it('leaves the health route without it when no admin token is configured', () => {
    const plain = Template.fromStack(buildChronosAppForProperties({ 'chronos:stage': 'dev' }).stateless);
    plain.hasResourceProperties('AWS::Lambda::Function', {
      Description: 'Chronos API: GET /v1/health',
      Environment: {
        Variables: Match.not(Match.objectLike({ [OBSERVABILITY_ENV.adminTokenSha256]: Match.anyValue() })),
      },
    });
  }, 60_000);
});
