import { join } from 'node:path';
import {
  AssetHashType,
  type CfnElement,
  DefaultStackSynthesizer,
  DockerImage,
  Duration,
  RemovalPolicy,
  Stack,
  Token,
  Validations,
} from 'aws-cdk-lib';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3deploy from 'aws-cdk-lib/aws-s3-deployment';
import { Construct } from 'constructs';
import {
  CONSOLE_CACHE_CONTROL,
  CONSOLE_CONTENT_SECURITY_POLICY,
  CONSOLE_HSTS_MAX_AGE_SECONDS,
} from '../console/security-headers.ts';
import { buildConsole } from '../console/vite-build.ts';
import { EDGE_SECRET_HEADER, VIEWER_ADDRESS_HEADER } from './api-waf.ts';
import { PROJECT_ROOT } from './chronos-function.ts';

export interface ConsoleSiteProps {
  /** The stage's REST API: `/v1/*` of the distribution goes to it. */
  restApiId: string;
  /** The API stage's name, the first segment of every API path (`/<stage>/v1/jobs`). */
  stageName: string;
  /**
   * The API web ACL's edge secret (ApiEdgeSecret's value, a dynamic reference): sent with every
   * /v1 request, with the viewer's address, so the API limits console users per viewer, not per
   * CloudFront edge address. Unset (the stage has no web ACL): neither is sent.
   */
  edgeSecret?: string;
  /**
   * The console workspace, built at synthesis with `vite build`. Default `console/` of the
   * repository; tests pass a placeholder of their own.
   */
  sourceDir?: string;
  /**
   * A host name of the operator's own and its ACM certificate (us-east-1), served at TLS 1.2 or
   * later; unset: the distribution's *.cloudfront.net name and CloudFront's default certificate.
   */
  domain?: { name: string; certificateArn: string };
  logRetention: logs.RetentionDays;
  /** Keep the access logs when the stack is deleted (the stage's retainData). */
  retainLogs: boolean;
}

/** Requests under this path go to the API; everything else is the console's files. */
export const API_PATH_PATTERN = '/v1/*';

/** HSTS as the local runtime sends it too (lib/console/security-headers.ts). */
export const HSTS_MAX_AGE = Duration.seconds(CONSOLE_HSTS_MAX_AGE_SECONDS);

/**
 * The single-page app's fallback, on the console's behaviour only: a path whose last segment has
 * no dot (`/jobs/01J…`, a client-side route) is answered with the app shell; a file (`/assets/x.js`)
 * is fetched as is. Distribution-wide custom error responses would do the same for the API too,
 * turning its 403 and 404 answers into index.html.
 */
export const SPA_FALLBACK_FUNCTION = `function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.lastIndexOf('.') <= uri.lastIndexOf('/')) request.uri = '/index.html';
  return request;
}`;

/**
 * The /v1 behaviour's viewer-request function: writes the viewer's address into
 * VIEWER_ADDRESS_HEADER, over any value the viewer sent, for the API web ACL's per-viewer rate
 * rules (api-waf.ts), which trust it only next to the edge secret. An IPv6 viewer is keyed by its
 * /64 (the first four groups, the rest zero), the block one subscriber is given, so a viewer
 * cannot take a fresh budget with each of its own addresses; an IPv4 one by its address, as the
 * per-source-IP rules do.
 */
export const VIEWER_ADDRESS_FUNCTION = `function handler(event) {
  var request = event.request;
  request.headers['${VIEWER_ADDRESS_HEADER}'] = { value: viewerKey(event.viewer.ip) };
  return request;
}
function viewerKey(ip) {
  if (ip.indexOf(':') < 0) return ip;
  var halves = ip.split('::');
  var head = halves[0] === '' ? [] : halves[0].split(':');
  var tail = halves.length < 2 || halves[1] === '' ? [] : halves[1].split(':');
  if (tail.length > 0 && tail[tail.length - 1].indexOf('.') >= 0) return tail[tail.length - 1];
  while (head.length + tail.length < 8) head.push('0');
  return head.concat(tail).slice(0, 4).join(':') + '::';
}`;

/**
 * The web console on AWS: the built `console/` workspace in a private S3 bucket, and one CloudFront
 * distribution that serves it and routes `/v1/*` to the stage's API, so the console calls its API
 * on its own origin (no CORS). The bucket is reachable through the distribution only (origin access
 * control); viewers are redirected to HTTPS; every console answer carries the security headers
 * (CSP, HSTS, frame denial, nosniff, referrer policy). A deploy uploads the build and invalidates
 * the distribution. The distribution's and the bucket's access logs go to a log bucket that keeps
 * them as long as the stage keeps its logs.
 */
export class ConsoleSite extends Construct {
  public readonly bucket: s3.Bucket;
  public readonly logBucket: s3.Bucket;
  public readonly distribution: cloudfront.Distribution;
  /** Rewrites client-side routes to /index.html on the console's behaviour. */
  public readonly spaFallback: cloudfront.Function;
  /** Writes the viewer's address for the API's web ACL on the /v1 behaviour; only with an edge secret. */
  public readonly viewerAddress: cloudfront.Function | undefined;
  public readonly consoleHeaders: cloudfront.ResponseHeadersPolicy;
  public readonly apiHeaders: cloudfront.ResponseHeadersPolicy;
  public readonly deployment: s3deploy.BucketDeployment;
  /** `https://<custom domain or distribution domain>/`. */
  public readonly url: string;

  constructor(scope: Construct, id: string, props: ConsoleSiteProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.logBucket = new s3.Bucket(this, 'Logs', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      // CloudFront standard logging writes with ACLs: the bucket's owner still owns each object.
      objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_PREFERRED,
      lifecycleRules: [{ expiration: Duration.days(props.logRetention) }],
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      autoDeleteObjects: !props.retainLogs,
    });
    this.bucket = new s3.Bucket(this, 'Files', {
      blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
      enforceSSL: true,
      encryption: s3.BucketEncryption.S3_MANAGED,
      serverAccessLogsBucket: this.logBucket,
      serverAccessLogsPrefix: 'console-bucket/',
      // Build output only, rebuilt from the repository by every deploy: nothing to keep.
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.spaFallback = new cloudfront.Function(this, 'SpaFallback', {
      code: cloudfront.FunctionCode.fromInline(SPA_FALLBACK_FUNCTION),
      runtime: cloudfront.FunctionRuntime.JS_2_0,
      comment: 'Chronos console: client-side routes get the app shell',
    });
    this.viewerAddress = props.edgeSecret
      ? new cloudfront.Function(this, 'ViewerAddress', {
          code: cloudfront.FunctionCode.fromInline(VIEWER_ADDRESS_FUNCTION),
          runtime: cloudfront.FunctionRuntime.JS_2_0,
          comment: "Chronos API behind the console: the viewer's address for the API's per-viewer rate limits",
        })
      : undefined;
    const hsts = { accessControlMaxAge: HSTS_MAX_AGE, includeSubdomains: true, override: true };
    this.consoleHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ConsoleHeaders', {
      comment: 'Chronos console: CSP, HSTS, frame denial, nosniff, referrer policy, revalidation',
      // Browsers revalidate every file (a 304 from the edge when unchanged), so the app shell of a
      // new deploy is seen at once; the edge keeps its cache until the deploy's invalidation.
      customHeadersBehavior: {
        customHeaders: [{ header: 'Cache-Control', value: CONSOLE_CACHE_CONTROL, override: false }],
      },
      securityHeadersBehavior: {
        contentSecurityPolicy: { contentSecurityPolicy: CONSOLE_CONTENT_SECURITY_POLICY, override: true },
        strictTransportSecurity: hsts,
        frameOptions: { frameOption: cloudfront.HeadersFrameOption.DENY, override: true },
        contentTypeOptions: { override: true },
        referrerPolicy: {
          referrerPolicy: cloudfront.HeadersReferrerPolicy.STRICT_ORIGIN_WHEN_CROSS_ORIGIN,
          override: true,
        },
      },
    });
    // The API's JSON answers: transport and sniffing headers; the API's own headers stay as they are.
    this.apiHeaders = new cloudfront.ResponseHeadersPolicy(this, 'ApiHeaders', {
      comment: 'Chronos API behind the console: HSTS and nosniff',
      securityHeadersBehavior: { strictTransportSecurity: hsts, contentTypeOptions: { override: true } },
    });
    const domain = props.domain;
    const customDomain = domain
      ? {
          domainNames: [domain.name],
          certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
          sslSupportMethod: cloudfront.SSLMethod.SNI,
          minimumProtocolVersion: cloudfront.SecurityPolicyProtocol.TLS_V1_2_2021,
        }
      : {};
    const apiDomain = `${props.restApiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Chronos ${props.stageName} console and API`,
      defaultRootObject: 'index.html',
      httpVersion: cloudfront.HttpVersion.HTTP2_AND_3,
      priceClass: cloudfront.PriceClass.PRICE_CLASS_100,
      ...customDomain,
      defaultBehavior: {
        origin: origins.S3BucketOrigin.withOriginAccessControl(this.bucket),
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.REDIRECT_TO_HTTPS,
        allowedMethods: cloudfront.AllowedMethods.ALLOW_GET_HEAD,
        cachePolicy: cloudfront.CachePolicy.CACHING_OPTIMIZED,
        compress: true,
        responseHeadersPolicy: this.consoleHeaders,
        functionAssociations: [{ function: this.spaFallback, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST }],
      },
      additionalBehaviors: {
        [API_PATH_PATTERN]: {
          // originPath puts the stage in front: https://<console>/v1/jobs reaches /<stage>/v1/jobs.
          origin: new origins.HttpOrigin(apiDomain, {
            originPath: `/${props.stageName}`,
            protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
            originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
            // The API's web ACL limits a request per viewer only when it carries this secret; a
            // viewer sending the header itself has it replaced by CloudFront (api-waf.ts).
            ...(props.edgeSecret ? { customHeaders: { [EDGE_SECRET_HEADER]: props.edgeSecret } } : {}),
          }),
          viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
          allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
          // Never cached; every viewer header but Host (API Gateway routes on its own host name)
          // reaches the API: Authorization, If-Match, Idempotency-Key, and the query string.
          cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
          originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
          responseHeadersPolicy: this.apiHeaders,
          compress: true,
          // Headers a viewer-request function sets are viewer headers to the policy above: the
          // viewer's address reaches the API with the rest.
          ...(this.viewerAddress
            ? {
                functionAssociations: [
                  { function: this.viewerAddress, eventType: cloudfront.FunctionEventType.VIEWER_REQUEST },
                ],
              }
            : {}),
        },
      },
      enableLogging: true,
      logBucket: this.logBucket,
      logFilePrefix: 'cloudfront/',
    });
    acknowledgeDistributionFindings(this.distribution, domain === undefined);
    this.deployment = new s3deploy.BucketDeployment(this, 'Deploy', {
      sources: [consoleSource(props.sourceDir ?? join(PROJECT_ROOT, 'console'))],
      destinationBucket: this.bucket,
      distribution: this.distribution,
      distributionPaths: ['/*'],
      // Files of older builds stay (hashed names never collide): a page opened before a deploy
      // still loads its lazy chunks. Deleting the stack empties the bucket before deleting it.
      prune: false,
      retainOnDelete: false,
      memoryLimit: 512,
      logGroup: new logs.LogGroup(this, 'DeployLogs', {
        retention: props.logRetention,
        removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
      }),
    });
    acknowledgeDeploymentFindings(this);
    this.url = `https://${domain?.name ?? this.distribution.distributionDomainName}/`;
  }
}

/**
 * The built console as an asset. Its hash is the build's output (AssetHashType.OUTPUT), not the
 * console's sources: the console imports code outside `console/` (the typed API client, the lock
 * file's versions), and a change there must redeploy it, while a change that builds to the same
 * files (a test, a comment) must not; hashing `console/` alone would miss the first. The price is a
 * `vite build` at every synthesis (seconds). Synthesis that skips bundling (the infra tests,
 * local IAM: `aws:cdk:bundling-stacks` []) never builds. `node_modules`, `dist` and `test` stay out
 * of the asset in any case.
 *
 * The build runs locally with the vite of the repository's node_modules and the Node.js running
 * the synthesis; when it fails, synthesis fails with vite's output. There is no Docker fallback:
 * the console is a workspace of this repository and needs its root node_modules, which a container
 * would not have (`image` is required by the type, and never used).
 */
function consoleSource(sourceDir: string): s3deploy.ISource {
  return s3deploy.Source.asset(sourceDir, {
    assetHashType: AssetHashType.OUTPUT,
    exclude: ['node_modules', 'dist', 'test'],
    bundling: {
      image: DockerImage.fromRegistry('node:24-slim'),
      local: { tryBundle: (outputDir) => buildConsole(sourceDir, outputDir) },
    },
  });
}

export { buildConsole };

function acknowledgeDistributionFindings(distribution: cloudfront.Distribution, defaultCertificate: boolean): void {
  Validations.of(distribution).acknowledge(
    {
      id: 'AwsSolutions::AwsSolutions-CFR1',
      reason: 'Tenants and operators use the console from wherever they are; access is by tenant token, not by country',
    },
    {
      id: 'AwsSolutions::AwsSolutions-CFR2',
      reason:
        "A CloudFront web ACL must live in us-east-1 and this stack is regional: /v1 requests still pass the API stage's own web ACL (api-waf.ts), and the rest are static files",
    },
  );
  // With a certificate of the stage's own the minimum is TLS 1.2, and there is nothing to acknowledge.
  if (defaultCertificate) {
    Validations.of(distribution).acknowledge({
      id: 'AwsSolutions::AwsSolutions-CFR4',
      reason:
        "The distribution uses CloudFront's default certificate (*.cloudfront.net), which allows no minimum protocol to be set (console.domainName and certificateArn give TLS 1.2); viewers are on HTTPS only",
    });
  }
}

/**
 * The BucketDeployment's handler is CDK's own (a Python function, a singleton of the stack): its
 * runtime, role and settings are CDK's, and CloudFormation runs it once per deploy. Its policy's
 * findings name the resources it copies between: the bootstrap's asset bucket and the console's.
 */
function acknowledgeDeploymentFindings(site: ConsoleSite): void {
  const stack = Stack.of(site);
  const handler = stack.node.findAll().find((node) => node.node.id.startsWith('Custom::CDKBucketDeployment'));
  const role = handler?.node.tryFindChild('ServiceRole');
  const policy = role?.node.tryFindChild('DefaultPolicy');
  if (!handler || !role || !policy) throw new Error('ConsoleSite: no BucketDeployment handler in the stack');
  const reason = (what: string) => `CDK's BucketDeployment handler, run by CloudFormation once per deploy, ${what}`;
  const qualifier = stack.synthesizer.bootstrapQualifier ?? DefaultStackSynthesizer.DEFAULT_QUALIFIER;
  // cdk-nag names a value unknown at synthesis by its pseudo parameter, and a known one as it is
  // (the CLI fills in the region, and the partition follows from it).
  const asWritten = (value: string, pseudo: string) => (Token.isUnresolved(value) ? `<AWS::${pseudo}>` : value);
  const assetBucket = `arn:${asWritten(stack.partition, 'Partition')}:s3:::cdk-${qualifier}-assets-${asWritten(stack.account, 'AccountId')}-${asWritten(stack.region, 'Region')}`;
  const filesArn = `<${stack.getLogicalId(site.bucket.node.defaultChild as CfnElement)}.Arn>`;
  const copying = reason(
    "copies the build from the bootstrap's asset bucket into the console bucket: CDK grants object reads there and object writes and deletes (prune) here",
  );
  Validations.of(role).acknowledge({
    id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
    reason: reason('has the AWS managed basic execution policy CDK gives its role (writing its logs)'),
  });
  Validations.of(policy).acknowledge(
    ...['s3:GetBucket*', 's3:GetObject*', 's3:List*', 's3:Abort*', 's3:DeleteObject*'].map((action) => ({
      id: `AwsSolutions::AwsSolutions-IAM5[Action::${action}]`,
      reason: copying,
    })),
    { id: `AwsSolutions::AwsSolutions-IAM5[Resource::${filesArn}/*]`, reason: copying },
    {
      id: `AwsSolutions::AwsSolutions-IAM5[Resource::${assetBucket}/*]`,
      reason: copying,
    },
    {
      id: 'AwsSolutions::AwsSolutions-IAM5[Resource::*]',
      reason: reason('invalidates the distribution: cloudfront:CreateInvalidation and GetInvalidation on Resource *'),
    },
  );
  const fn = handler.node.tryFindChild('Resource');
  if (!fn) throw new Error('ConsoleSite: no BucketDeployment function in the stack');
  Validations.of(fn).acknowledge(
    {
      id: 'Serverless::Serverless-LambdaDLQ',
      reason: reason('is invoked by CloudFormation, which sees its failure and rolls the deploy back'),
    },
    { id: 'Serverless::Serverless-LambdaLatestVersion', reason: reason('has its Python runtime pinned by CDK') },
    { id: 'AwsSolutions::AwsSolutions-L1', reason: reason('has its Python runtime pinned by CDK') },
    { id: 'Serverless::Serverless-LambdaTracing', reason: reason('is a copy job: its log group is enough') },
  );
}
