/**
 * The web console on AWS (lib/constructs/console-site.ts): a private bucket behind one CloudFront
 * distribution that serves the console and routes /v1/* to the stage's API, HTTPS only, with
 * security headers; and the `vite build` that fills the bucket at synthesis.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { BlockList, isIP } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { CachePolicy, OriginRequestPolicy } from 'aws-cdk-lib/aws-cloudfront';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENV } from '#adapters/environment';
import type { ChronosApp } from '../../lib/app.ts';
import { CONSOLE_CACHE_CONTROL, CONSOLE_CONTENT_SECURITY_POLICY } from '../../lib/console/security-headers.ts';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from '../../lib/constructs/api-waf.ts';
import {
  API_PATH_PATTERN,
  buildConsole,
  SPA_FALLBACK_FUNCTION,
  VIEWER_ADDRESS_FUNCTION,
} from '../../lib/constructs/console-site.ts';
import {
  buildChronosApp,
  buildChronosAppForProperties,
  CDK_HANDLER_PREFIXES,
  CDK_JSON_CONTEXT,
  isCdkHandler,
  logicalIdOf,
  SKIP_BUNDLING,
} from './support/chronos-app.ts';

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation JSON walked by the assertions
type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
// biome-ignore lint/suspicious/noExplicitAny: CloudFront behaviour JSON
type Behaviour = Record<string, any>;

const STAGES = CDK_JSON_CONTEXT['chronos:stages'] as Record<string, Record<string, unknown>>;
const withDev = (block: Record<string, unknown>) => ({
  'chronos:stages': { ...STAGES, dev: { ...STAGES.dev, ...block } },
});

let chronos: ChronosApp;
let template: Template;
let resources: Record<string, Resource>;
let distribution: Resource['Properties'];
let defaultBehaviour: Behaviour;
let apiBehaviour: Behaviour;

beforeAll(() => {
  chronos = buildChronosAppForProperties({ 'chronos:stage': 'dev' });
  template = Template.fromStack(chronos.stateless);
  resources = template.toJSON().Resources;
  const site = chronos.stateless.console;
  if (!site) throw new Error('the dev stage has no console');
  distribution = propsOf(site.distribution).DistributionConfig;
  defaultBehaviour = distribution.DefaultCacheBehavior;
  apiBehaviour = distribution.CacheBehaviors.find((b: Behaviour) => b.PathPattern === API_PATH_PATTERN);
}, 60_000);

function site() {
  const found = chronos.stateless.console;
  if (!found) throw new Error('no console');
  return found;
}

function propsOf(construct: object): Resource['Properties'] {
  const found = resources[logicalIdOf(construct as never)];
  if (!found) throw new Error(`no resource for ${String(construct)}`);
  return found.Properties;
}

function originOf(behaviour: Behaviour): Behaviour {
  const origin = distribution.Origins.find((o: Behaviour) => o.Id === behaviour.TargetOriginId);
  if (!origin) throw new Error(`no origin ${behaviour.TargetOriginId}`);
  return origin;
}

const ref = (construct: object) => ({ Ref: logicalIdOf(construct as never) });

describe('the console bucket', () => {
  it('is private: all public access blocked, SSL enforced, S3-managed encryption, no website hosting', () => {
    const bucket = propsOf(site().bucket);
    expect(bucket.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    expect(bucket.BucketEncryption.ServerSideEncryptionConfiguration).toEqual([
      { ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } },
    ]);
    expect(bucket.WebsiteConfiguration).toBeUndefined();
    const policy = Object.values(resources).find(
      (r) =>
        r.Type === 'AWS::S3::BucketPolicy' &&
        JSON.stringify(r.Properties.Bucket) === JSON.stringify(ref(site().bucket)),
    );
    const statements = policy?.Properties.PolicyDocument.Statement as Behaviour[];
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Action: 's3:*',
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
        Principal: { AWS: '*' },
      }),
    );
    // Readable by this distribution only (origin access control), and by no public principal.
    const reads = statements.filter((s) => s.Effect === 'Allow');
    expect(reads.length).toBeGreaterThan(0);
    for (const statement of reads) {
      expect(statement.Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
      expect(JSON.stringify(statement.Condition)).toContain(logicalIdOf(site().distribution));
    }
  });

  it("is filled by the deployment, which invalidates the whole distribution and keeps older builds' files", () => {
    const deployment = Object.values(resources).find((r) => r.Type === 'Custom::CDKBucketDeployment');
    expect(deployment?.Properties).toMatchObject({
      DestinationBucketName: ref(site().bucket),
      DistributionId: ref(site().distribution),
      DistributionPaths: ['/*'],
      // A page opened before the deploy still finds its lazy chunks.
      Prune: false,
    });
    // Deleting the stack empties the bucket (the deployment's delete), so the bucket can go too.
    expect(deployment?.Properties.RetainOnDelete).toBe(false);
    expect(resources[logicalIdOf(site().bucket)]?.DeletionPolicy).toBe('Delete');
  });
});

describe('the distribution', () => {
  it('serves the console from the bucket through origin access control, index.html at the root', () => {
    expect(distribution.DefaultRootObject).toBe('index.html');
    const origin = originOf(defaultBehaviour);
    expect(origin.DomainName).toEqual({ 'Fn::GetAtt': [logicalIdOf(site().bucket), 'RegionalDomainName'] });
    const oacId = origin.OriginAccessControlId?.['Fn::GetAtt']?.[0];
    expect(resources[oacId]?.Type).toBe('AWS::CloudFront::OriginAccessControl');
    expect(resources[oacId]?.Properties.OriginAccessControlConfig).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
      SigningProtocol: 'sigv4',
    });
    // No origin access identity (the legacy way) beside it.
    expect(origin.S3OriginConfig?.OriginAccessIdentity ?? '').toBe('');
  });

  it("routes /v1/* to the stage's API: originPath is the stage, so /v1/jobs reaches /<stage>/v1/jobs", () => {
    expect(apiBehaviour).toBeDefined();
    const origin = originOf(apiBehaviour);
    expect(origin.OriginPath).toBe(`/${chronos.config.stage}`);
    expect(origin.DomainName).toEqual({
      'Fn::Join': [
        '',
        [ref(chronos.stateless.api.api), '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }],
      ],
    });
    expect(origin.CustomOriginConfig).toEqual({ OriginProtocolPolicy: 'https-only', OriginSSLProtocols: ['TLSv1.2'] });
  });

  it('passes every method, the Authorization header and the query string to the API, and caches none of it', () => {
    expect([...apiBehaviour.AllowedMethods].sort()).toEqual(
      ['DELETE', 'GET', 'HEAD', 'OPTIONS', 'PATCH', 'POST', 'PUT'].sort(),
    );
    expect(apiBehaviour.CachePolicyId).toBe(CachePolicy.CACHING_DISABLED.cachePolicyId);
    expect(apiBehaviour.OriginRequestPolicyId).toBe(
      OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    );
    // The console's behaviour only reads files.
    expect(defaultBehaviour.AllowedMethods).toEqual(['GET', 'HEAD']);
  });

  it('answers client-side routes with the app shell on the console only, never on /v1/*', () => {
    expect(defaultBehaviour.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [logicalIdOf(site().spaFallback), 'FunctionARN'] } },
    ]);
    // The /v1 behaviour runs the viewer-address function only (below), never the fallback.
    expect(JSON.stringify(apiBehaviour.FunctionAssociations)).not.toContain(logicalIdOf(site().spaFallback));
    expect(apiBehaviour.LambdaFunctionAssociations).toBeUndefined();
    // No distribution-wide error page: the API's 403 and 404 reach the caller as they are.
    expect(distribution.CustomErrorResponses).toBeUndefined();
    expect(propsOf(site().spaFallback)).toMatchObject({
      FunctionCode: SPA_FALLBACK_FUNCTION,
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
    });
  });

  it('is HTTPS only: viewers are redirected (console) or refused (API) on plain HTTP', () => {
    expect(defaultBehaviour.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(apiBehaviour.ViewerProtocolPolicy).toBe('https-only');
    for (const behaviour of [defaultBehaviour, ...distribution.CacheBehaviors]) {
      expect(behaviour.ViewerProtocolPolicy).not.toBe('allow-all');
    }
  });

  it('logs its requests, and the bucket its own, to the log bucket, kept as long as the stage keeps logs', () => {
    expect(distribution.Logging).toEqual({
      Bucket: { 'Fn::GetAtt': [logicalIdOf(site().logBucket), 'RegionalDomainName'] },
      Prefix: 'cloudfront/',
    });
    expect(propsOf(site().bucket).LoggingConfiguration).toEqual({
      DestinationBucketName: ref(site().logBucket),
      LogFilePrefix: 'console-bucket/',
    });
    const logs = propsOf(site().logBucket);
    expect(logs.LifecycleConfiguration.Rules).toEqual([
      { ExpirationInDays: chronos.config.logRetentionDays, Status: 'Enabled' },
    ]);
    expect(logs.PublicAccessBlockConfiguration.BlockPublicPolicy).toBe(true);
    expect(resources[logicalIdOf(site().logBucket)]?.DeletionPolicy).toBe('Delete');
    const prod = buildChronosAppForProperties({ 'chronos:stage': 'prod' });
    const prodLogs = prod.stateless.console?.logBucket;
    expect(prodLogs).toBeDefined();
    const prodResources = Template.fromStack(prod.stateless).toJSON().Resources as Record<string, Resource>;
    expect(prodResources[logicalIdOf(prodLogs as never)]?.DeletionPolicy).toBe('Retain');
  }, 60_000);
});

describe("the API's view of console viewers (the edge secret and the viewer's address)", () => {
  // The function's own code, run as CloudFront would: it returns the request it was given.
  const viewerRequest = (ip: string, headers: Record<string, { value: string }> = {}) => {
    const handler = new Function(`${VIEWER_ADDRESS_FUNCTION}; return handler;`)() as (event: {
      request: { headers: Record<string, { value: string }> };
      viewer: { ip: string };
    }) => { headers: Record<string, { value: string }> };
    return handler({ request: { headers: { ...headers } }, viewer: { ip } }).headers;
  };
  const viewerKey = (ip: string) => viewerRequest(ip)[VIEWER_ADDRESS_HEADER]?.value;

  it("sends the web ACL's edge secret with every /v1 request, and nothing of it to the bucket", () => {
    const secret = chronos.stateless.edgeSecret;
    if (!secret) throw new Error('the dev stage has no edge secret');
    expect(originOf(apiBehaviour).OriginCustomHeaders).toEqual([
      { HeaderName: EDGE_SECRET_HEADER, HeaderValue: chronos.stateless.resolve(secret.value) },
    ]);
    // The very value the web ACL matches (api-waf.test.ts checks its rules), resolved from Secrets Manager.
    expect(JSON.stringify(chronos.stateless.resolve(secret.value))).toContain('{{resolve:secretsmanager:');
    expect(originOf(defaultBehaviour).OriginCustomHeaders).toBeUndefined();
  });

  it("runs the viewer-address function on /v1 requests: CloudFront's own view of the viewer, for the per-viewer limits", () => {
    const fn = site().viewerAddress;
    if (!fn) throw new Error('no viewer-address function');
    expect(apiBehaviour.FunctionAssociations).toEqual([
      { EventType: 'viewer-request', FunctionARN: { 'Fn::GetAtt': [logicalIdOf(fn), 'FunctionARN'] } },
    ]);
    expect(propsOf(fn)).toMatchObject({
      FunctionCode: VIEWER_ADDRESS_FUNCTION,
      FunctionConfig: { Runtime: 'cloudfront-js-2.0' },
    });
    // The origin request policy passes every viewer header on, the function's included.
    expect(apiBehaviour.OriginRequestPolicyId).toBe(
      OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER.originRequestPolicyId,
    );
  });

  it('writes the viewer address over any value the viewer sent, and leaves the other headers alone', () => {
    const headers = viewerRequest('198.51.100.7', {
      [VIEWER_ADDRESS_HEADER]: { value: '10.0.0.1' },
      authorization: { value: 'Bearer chr_x' },
    });
    expect(headers[VIEWER_ADDRESS_HEADER]).toEqual({ value: '198.51.100.7' });
    expect(headers.authorization).toEqual({ value: 'Bearer chr_x' });
  });

  it('keys an IPv6 viewer by its /64, so one subscriber cannot take a fresh budget per address', () => {
    expect(viewerKey('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::');
    expect(viewerKey('2001:db8:1:2::9')).toBe('2001:db8:1:2::');
    expect(viewerKey('2001:db8::1')).toBe('2001:db8:0:0::');
    expect(viewerKey('::1')).toBe('0:0:0:0::');
    expect(viewerKey('fe80::')).toBe('fe80:0:0:0::');
    expect(viewerKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    fc.assert(
      fc.property(fc.oneof(fc.ipV4(), fc.ipV6()), (ip) => {
        const key = viewerKey(ip) ?? '';
        // Always an address WAF can aggregate on (its NO_MATCH fallback never applies).
        expect(isIP(key), `${ip} -> ${key}`).not.toBe(0);
        if (isIP(ip) === 4 || ip.includes('.')) return;
        expect(key).toMatch(/^([0-9a-f]{1,4}:){4}:$/i);
        const block = new BlockList();
        block.addSubnet(key, 64, 'ipv6');
        expect(block.check(ip, 'ipv6'), `${ip} -> ${key}`).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('sends neither on a stage without a web ACL (nothing reads them)', () => {
    const app = buildChronosAppForProperties(withDev({ waf: { enabled: false } }));
    const offSite = app.stateless.console;
    if (!offSite) throw new Error('no console');
    expect(app.stateless.edgeSecret).toBeUndefined();
    expect(offSite.viewerAddress).toBeUndefined();
    const config = (Template.fromStack(app.stateless).toJSON().Resources as Record<string, Resource>)[
      logicalIdOf(offSite.distribution)
    ]?.Properties.DistributionConfig;
    const api = config.CacheBehaviors.find((b: Behaviour) => b.PathPattern === API_PATH_PATTERN);
    expect(api.FunctionAssociations).toBeUndefined();
    const origin = config.Origins.find((o: Behaviour) => o.Id === api.TargetOriginId);
    expect(origin.OriginCustomHeaders).toBeUndefined();
  }, 60_000);
});

describe('a custom console domain (console.domainName and certificateArn)', () => {
  const CERTIFICATE = 'arn:aws:acm:us-east-1:123456789012:certificate/0b5e5c6a-8f1e-4d2a-9c3b-7a6d5e4f3a2b';
  const custom = withDev({ console: { domainName: 'console.example.com', certificateArn: CERTIFICATE } });

  it('is served with its certificate at TLS 1.2 or later, is the output URL, and is a host no job may target', () => {
    const app = buildChronosAppForProperties(custom);
    const customTemplate = Template.fromStack(app.stateless);
    const all = customTemplate.toJSON();
    const customSite = app.stateless.console;
    if (!customSite) throw new Error('no console');
    const config = (all.Resources as Record<string, Resource>)[logicalIdOf(customSite.distribution)]?.Properties
      .DistributionConfig;
    expect(config.Aliases).toEqual(['console.example.com']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: CERTIFICATE,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    expect(all.Outputs.ConsoleUrl.Value).toBe('https://console.example.com/');
    const hosts = (all.Resources as Record<string, Resource>)[logicalIdOf(app.stateless.executor.function)]?.Properties
      .Environment.Variables[ENV.chronosApiHosts];
    expect(JSON.stringify(hosts)).toContain('console.example.com');
    // The distribution's own name still reaches the API too.
    expect(JSON.stringify(hosts)).toContain(
      JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(customSite.distribution), 'DomainName'] }),
    );
  }, 60_000);

  it('leaves no TLS finding to acknowledge (cdk-nag, CFR4)', () => {
    const app = buildChronosApp({ ...SKIP_BUNDLING, ...custom });
    // Synthesis throws on any finding left open.
    const assembly = app.app.synth();
    const report = JSON.parse(readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8')) as {
      pluginReports: Array<{ violations: unknown[]; suppressedViolations?: Array<{ ruleName: string }> }>;
    };
    expect(report.pluginReports.flatMap((r) => r.violations)).toEqual([]);
    const acknowledged = report.pluginReports.flatMap((r) => (r.suppressedViolations ?? []).map((v) => v.ruleName));
    expect(acknowledged).toContain('AwsSolutions-CFR1');
    expect(acknowledged).not.toContain('AwsSolutions-CFR4');
  }, 90_000);
});

describe('the security headers', () => {
  function securityHeaders(behaviour: Behaviour): Behaviour {
    const id = behaviour.ResponseHeadersPolicyId?.Ref;
    expect(resources[id]?.Type).toBe('AWS::CloudFront::ResponseHeadersPolicy');
    return resources[id]?.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig;
  }

  it("of every console answer: a CSP of the console's own origin with frame-ancestors 'none', HSTS, DENY, nosniff, referrer", () => {
    const headers = securityHeaders(defaultBehaviour);
    expect(headers.ContentSecurityPolicy).toEqual({
      ContentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY,
      Override: true,
    });
    const csp = CONSOLE_CONTENT_SECURITY_POLICY.split('; ');
    expect(csp).toEqual(
      expect.arrayContaining([
        "default-src 'self'",
        "connect-src 'self'",
        "script-src 'self'",
        "frame-ancestors 'none'",
        "base-uri 'none'",
        "form-action 'self'",
      ]),
    );
    // Inline styles only (Recharts), never inline or foreign scripts.
    expect(CONSOLE_CONTENT_SECURITY_POLICY).not.toMatch(/script-src[^;]*(unsafe|http|\*)/);
    expect(headers.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(365 * 24 * 3600);
    expect(headers.StrictTransportSecurity.IncludeSubdomains).toBe(true);
    expect(headers.FrameOptions).toEqual({ FrameOption: 'DENY', Override: true });
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
    expect(headers.ReferrerPolicy).toEqual({ ReferrerPolicy: 'strict-origin-when-cross-origin', Override: true });
  });

  it('tell browsers to revalidate each console file, so a deploy shows at once', () => {
    const id = defaultBehaviour.ResponseHeadersPolicyId?.Ref;
    const custom = resources[id]?.Properties.ResponseHeadersPolicyConfig.CustomHeadersConfig.Items;
    expect(custom).toEqual([{ Header: 'Cache-Control', Value: CONSOLE_CACHE_CONTROL, Override: false }]);
    expect(CONSOLE_CACHE_CONTROL).toBe('no-cache');
  });

  it('of every API answer through the distribution: HSTS and nosniff', () => {
    const headers = securityHeaders(apiBehaviour);
    expect(headers.StrictTransportSecurity.AccessControlMaxAgeSec).toBeGreaterThanOrEqual(365 * 24 * 3600);
    expect(headers.ContentTypeOptions).toEqual({ Override: true });
  });
});

describe('the single-page-app fallback function', () => {
  // The function's own code, run as CloudFront would: it returns the request it was given.
  const rewrite = (uri: string): string => {
    const handler = new Function(`${SPA_FALLBACK_FUNCTION}; return handler;`)() as (event: {
      request: { uri: string };
    }) => { uri: string };
    return handler({ request: { uri } }).uri;
  };

  it('gives client-side routes the app shell and leaves files alone', () => {
    expect(rewrite('/')).toBe('/index.html');
    expect(rewrite('/jobs')).toBe('/index.html');
    expect(rewrite('/jobs/01JCW7Z3N5V6Q2R8T9Y0X1A2B3/runs')).toBe('/index.html');
    expect(rewrite('/health/')).toBe('/index.html');
    expect(rewrite('/assets/index-3f2a1b.js')).toBe('/assets/index-3f2a1b.js');
    expect(rewrite('/favicon.svg')).toBe('/favicon.svg');
    expect(rewrite('/index.html')).toBe('/index.html');
    // A dot in an earlier segment does not make a route a file.
    expect(rewrite('/v.2/jobs')).toBe('/index.html');
  });
});

describe('the stack', () => {
  it('outputs the console URL: https://<distribution domain>/', () => {
    const outputs = template.toJSON().Outputs as Record<string, { Value: unknown }>;
    expect(outputs.ConsoleUrl?.Value).toEqual({
      'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [logicalIdOf(site().distribution), 'DomainName'] }, '/']],
    });
  });

  it("tells every function that checks targets the distribution's host: a job calling the API through it would loop", () => {
    const { apiHandlers, executor, completion, notifier, streamFailures } = chronos.stateless;
    const domain = JSON.stringify({ 'Fn::GetAtt': [logicalIdOf(site().distribution), 'DomainName'] });
    for (const fn of [
      ...apiHandlers.functions.values(),
      executor.function,
      completion.function,
      notifier.function,
      streamFailures.function,
    ]) {
      const hosts = propsOf(fn).Environment.Variables[ENV.chronosApiHosts];
      expect(JSON.stringify(hosts), fn.node.id).toContain(domain);
    }
  });

  it("has no Lambda function besides the Chronos functions but CDK's two handlers (deployment, bucket emptying)", () => {
    const chronosFunctions = new Set(
      [
        ...chronos.stateless.apiHandlers.functions.values(),
        chronos.stateless.authorizer.function,
        chronos.stateless.scanner.function,
        chronos.stateless.executor.function,
        chronos.stateless.completion.function,
        chronos.stateless.deadLetters.function,
        chronos.stateless.notifier.function,
        chronos.stateless.streamFailures.function,
      ].map((fn) => logicalIdOf(fn)),
    );
    const others = Object.entries(resources)
      .filter(([id, r]) => r.Type === 'AWS::Lambda::Function' && !chronosFunctions.has(id))
      .map(([id]) => id);
    expect(others).toHaveLength(CDK_HANDLER_PREFIXES.length);
    for (const prefix of CDK_HANDLER_PREFIXES) expect(others.filter((id) => id.startsWith(prefix))).toHaveLength(1);
    expect(others.every(isCdkHandler)).toBe(true);
  });

  it('has no console when the stage turns it off: no bucket, distribution, output or CDK handler', () => {
    const off = buildChronosAppForProperties(withDev({ console: { enabled: false } }));
    expect(off.stateless.console).toBeUndefined();
    const offTemplate = Template.fromStack(off.stateless).toJSON();
    const types = Object.values(offTemplate.Resources as Record<string, Resource>).map((r) => r.Type);
    expect(types).not.toContain('AWS::CloudFront::Distribution');
    expect(types).not.toContain('AWS::S3::Bucket');
    expect(types).not.toContain('Custom::CDKBucketDeployment');
    expect(Object.keys(offTemplate.Outputs)).not.toContain('ConsoleUrl');
    expect(Object.keys(offTemplate.Resources).filter(isCdkHandler)).toEqual([]);
  }, 60_000);
});

describe('the console build (vite build at synthesis)', () => {
  const root = mkdtempSync(join(tmpdir(), 'chronos-console-site-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  function placeholder(name: string, script: string): string {
    const dir = join(root, name);
    mkdirSync(dir);
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><html><head><title>placeholder</title></head><body><script type="module" src="/main.js"></script></body></html>',
    );
    writeFileSync(join(dir, 'main.js'), script);
    return dir;
  }

  it('writes the built app (index.html and its bundled script) into the folder CDK stages', () => {
    const source = placeholder('good', "document.body.append('placeholder console');\n");
    const output = join(root, 'good-out');
    mkdirSync(output);
    expect(buildConsole(source, output)).toBe(true);
    const html = readFileSync(join(output, 'index.html'), 'utf8');
    const script = html.match(/src="\/(assets\/[^"]+\.js)"/)?.[1];
    expect(script).toBeDefined();
    expect(readFileSync(join(output, script as string), 'utf8')).toContain('placeholder console');
  }, 60_000);

  it('fails synthesis with the build error instead of deploying a broken console', () => {
    const source = placeholder('broken', 'export const = ;\n');
    const output = join(root, 'broken-out');
    mkdirSync(output);
    expect(() => buildConsole(source, output)).toThrow(/vite build of the console .*failed[\s\S]*main\.js/);
  }, 60_000);
});
