import { readFileSync } from 'node:fs';
import { Duration, RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as apigateway from 'aws-cdk-lib/aws-apigateway';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Route } from '#handlers/api/routes';
import { bodyModel } from '../api/body-model.ts';
import { errorTemplate, GATEWAY_RESPONSES } from '../api/gateway-responses.ts';
import type { ApiThrottle, WafConfig } from '../config.ts';
import { pascalCase } from './api-handlers.ts';
import { type ApiEdgeSecret, ApiWaf } from './api-waf.ts';
import { PROJECT_ROOT } from './chronos-function.ts';

export interface SchedulerApiProps {
  stage: string;
  routes: readonly Route[];
  /** The function behind each route, by the route's `handler`. */
  handlers: ReadonlyMap<string, lambda.IFunction>;
  /** REQUEST authorizer for routes with `authorized: true`. */
  authorizerFunction: lambda.IFunction;
  throttle: ApiThrottle;
  /** The WAF web ACL on the stage (lib/constructs/api-waf.ts); disabled: none. */
  waf: WafConfig;
  /** The console distribution's secret header value: its requests are limited per viewer (api-waf.ts). */
  edgeSecret?: ApiEdgeSecret;
  /** Empty: no CORS preflight at all. */
  corsAllowOrigins: readonly string[];
  /** Per-method CloudWatch metrics (billed per metric, read by no alarm or widget): off unless asked for. */
  detailedMetrics: boolean;
  logRetention: logs.RetentionDays;
  retainLogs: boolean;
}

/**
 * The public REST API, built from the route table: validated bodies (models from schemas/),
 * a Lambda REQUEST authorizer on authorized routes, stage throttling, JSON access logs, X-Ray,
 * and gateway responses in the Chronos error shape.
 */
/** Request headers the API reads: a browser's preflight must allow each. */
export const CORS_ALLOW_HEADERS = ['Authorization', 'Content-Type', 'Idempotency-Key', 'If-Match'] as const;
/** Response headers a browser script may read: the job's version and when to come back. */
export const CORS_EXPOSE_HEADERS = ['ETag', 'Retry-After'] as const;

export class SchedulerApi extends Construct {
  public readonly api: apigateway.RestApi;
  public readonly authorizer: apigateway.RequestAuthorizer;
  public readonly accessLogs: logs.LogGroup;
  /**
   * The stage's execution log group, which API Gateway would otherwise create itself on first
   * use, without retention: created here, under the name API Gateway writes to, with the stage's.
   */
  public readonly executionLogs: logs.LogGroup;
  /** Undefined when the stage's config turns WAF off. */
  public readonly waf: ApiWaf | undefined;
  /** Methods by `<METHOD> <path>`. */
  public readonly methods: ReadonlyMap<string, apigateway.Method>;

  constructor(scope: Construct, id: string, props: SchedulerApiProps) {
    super(scope, id);
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.logRetention,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    const cors = props.corsAllowOrigins.length > 0;
    this.api = new apigateway.RestApi(this, 'Api', {
      restApiName: `chronos-${props.stage}`,
      description: 'Chronos job scheduler API',
      endpointTypes: [apigateway.EndpointType.REGIONAL],
      // Execution logging needs the account-level CloudWatch role; API Gateway has one per account and region.
      cloudWatchRole: true,
      deployOptions: {
        stageName: props.stage,
        tracingEnabled: true,
        metricsEnabled: props.detailedMetrics,
        loggingLevel: apigateway.MethodLoggingLevel.ERROR,
        dataTraceEnabled: false,
        throttlingRateLimit: props.throttle.rateLimit,
        throttlingBurstLimit: props.throttle.burstLimit,
        accessLogDestination: new apigateway.LogGroupLogDestination(this.accessLogs),
        accessLogFormat: accessLogFormat(),
      },
      ...(cors
        ? {
            defaultCorsPreflightOptions: {
              allowOrigins: [...props.corsAllowOrigins],
              allowMethods: [...new Set(props.routes.map((r) => r.method))],
              allowHeaders: [...CORS_ALLOW_HEADERS],
              exposeHeaders: [...CORS_EXPOSE_HEADERS],
              maxAge: Duration.hours(1),
            },
          }
        : {}),
    });
    this.executionLogs = new logs.LogGroup(this, 'ExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${this.api.restApiId}/${props.stage}`,
      retention: props.logRetention,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    // Before the stage exists, so no request can make API Gateway create the group first.
    this.api.deploymentStage.node.addDependency(this.executionLogs);
    if (props.waf.enabled) {
      this.waf = new ApiWaf(this, 'Waf', {
        stage: props.stage,
        apiStage: this.api.deploymentStage,
        limits: props.waf,
        ...(props.edgeSecret ? { edgeSecret: props.edgeSecret } : {}),
        logRetention: props.logRetention,
        retainLogs: props.retainLogs,
      });
    } else {
      Validations.of(this.api.deploymentStage).acknowledge({
        id: 'AwsSolutions::AwsSolutions-APIG3',
        reason:
          'This stage turns WAF off in its config (waf.enabled false, e.g. to save its cost in dev): stage throttling and the token authorizer remain',
      });
    }
    const cloudWatchRole = this.api.node.tryFindChild('CloudWatchRole');
    if (cloudWatchRole) {
      Validations.of(cloudWatchRole).acknowledge({
        id: 'AwsSolutions::AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]',
        reason:
          'The account-level API Gateway logging role uses the AWS managed policy that API Gateway documents for it',
      });
    }
    for (const response of GATEWAY_RESPONSES) {
      this.api.addGatewayResponse(pascalCase(response.type.responseType), {
        type: response.type,
        ...(response.statusCode ? { statusCode: response.statusCode } : {}),
        templates: { 'application/json': errorTemplate(response) },
        ...(cors ? { responseHeaders: gatewayCorsHeaders(props.corsAllowOrigins) } : {}),
      });
    }
    this.authorizer = new apigateway.RequestAuthorizer(this, 'Authorizer', {
      handler: props.authorizerFunction,
      identitySources: [apigateway.IdentitySource.header('Authorization')],
      // Short, so a revoked token stops working quickly; the policy must cover the whole API (it is reused across routes).
      resultsCacheTtl: Duration.seconds(30),
    });
    const validator = this.api.addRequestValidator('BodyAndParameters', {
      validateRequestBody: true,
      validateRequestParameters: true,
    });
    const methods = new Map<string, apigateway.Method>();
    for (const route of props.routes) {
      const handler = props.handlers.get(route.handler);
      if (!handler) throw new Error(`SchedulerApi: no function for route handler "${route.handler}"`);
      const method = this.api.root
        .resourceForPath(route.path)
        .addMethod(route.method, new apigateway.LambdaIntegration(handler, { allowTestInvoke: false }), {
          requestValidator: validator,
          requestParameters: pathParameters(route.path),
          ...(route.bodySchema ? { requestModels: { 'application/json': this.modelFor(route.bodySchema) } } : {}),
          ...(route.authorized
            ? { authorizer: this.authorizer, authorizationType: apigateway.AuthorizationType.CUSTOM }
            : { authorizationType: apigateway.AuthorizationType.NONE }),
        });
      if (route.authorized) {
        Validations.of(method).acknowledge({
          id: 'AwsSolutions::AwsSolutions-COG4',
          reason:
            'Tenants authenticate with bearer tokens checked by the Lambda REQUEST authorizer, not Cognito user pools',
        });
      } else {
        const reason = publicRouteReason(route);
        Validations.of(method).acknowledge(
          { id: 'AwsSolutions::AwsSolutions-APIG4', reason },
          { id: 'AwsSolutions::AwsSolutions-COG4', reason },
        );
      }
      methods.set(`${route.method} ${route.path}`, method);
    }
    if (cors) acknowledgePreflights(this.api.root);
    this.methods = methods;
  }

  private readonly models = new Map<string, apigateway.Model>();

  /** One model per schema file, shared by every route that names it. */
  private modelFor(schemaFile: string): apigateway.Model {
    const existing = this.models.get(schemaFile);
    if (existing) return existing;
    const name = pascalCase(schemaFile.replace(/\.json$/, ''));
    const schema = JSON.parse(readFileSync(`${PROJECT_ROOT}schemas/${schemaFile}`, 'utf8'));
    const model = this.api.addModel(`${name}Model`, {
      modelName: name,
      contentType: 'application/json',
      schema: bodyModel(schema),
    });
    this.models.set(schemaFile, model);
    return model;
  }
}

/**
 * CORS headers of the answers API Gateway makes itself (401, 403, 404, 429, validation). One origin
 * is named as is. With several, a gateway response cannot choose among them (its headers are
 * static or copied from the request), so it echoes the request's Origin: these answers carry only
 * the Chronos error shape, never a tenant's data; the Lambda answers check the origin against the
 * list (functions/handlers/api/cors.ts).
 */
function gatewayCorsHeaders(origins: readonly string[]): Record<string, string> {
  return {
    'Access-Control-Allow-Origin': origins.length === 1 ? `'${origins[0]}'` : 'method.request.header.Origin',
    'Access-Control-Expose-Headers': `'${CORS_EXPOSE_HEADERS.join(',')}'`,
    Vary: "'Origin'",
  };
}

/** Why a route has no authorizer, as its cdk-nag acknowledgement says. */
export function publicRouteReason(route: Route): string {
  if (route.credential === 'callback-token') {
    return `${route.method} ${route.path} takes no API token by design: the worker of an async run may hold none, and the path's callback token is the credential (HMAC-SHA256 under a key only Chronos holds, bound to tenant, job, occurrence and attempt; checked by the function before any read)`;
  }
  return `${route.method} ${route.path} is public by design (routes.ts: authorized false)`;
}

/** `{id}` placeholders become required path parameters, so the validator checks them too. */
function pathParameters(path: string): Record<string, boolean> {
  const names = [...path.matchAll(/\{([^}+]+)\+?\}/g)].map((m) => m[1]);
  return Object.fromEntries(names.map((name) => [`method.request.path.${name}`, true]));
}

/** CORS preflight (OPTIONS) must answer browsers without credentials. */
function acknowledgePreflights(resource: apigateway.IResource): void {
  for (const child of resource.node.findAll()) {
    if (child instanceof apigateway.Method && child.httpMethod === 'OPTIONS') {
      const reason = 'CORS preflight requests carry no credentials by the CORS specification';
      Validations.of(child).acknowledge(
        { id: 'AwsSolutions::AwsSolutions-APIG4', reason },
        { id: 'AwsSolutions::AwsSolutions-COG4', reason },
      );
    }
  }
}

function accessLogFormat(): apigateway.AccessLogFormat {
  const f = apigateway.AccessLogField;
  return apigateway.AccessLogFormat.custom(
    JSON.stringify({
      requestId: f.contextRequestId(),
      extendedRequestId: f.contextExtendedRequestId(),
      requestTime: f.contextRequestTime(),
      ip: f.contextIdentitySourceIp(),
      method: f.contextHttpMethod(),
      resourcePath: f.contextResourcePath(),
      status: f.contextStatus(),
      responseLength: f.contextResponseLength(),
      responseLatency: f.contextResponseLatency(),
      integrationLatency: f.contextIntegrationLatency(),
      tenantId: f.contextAuthorizer('tenantId'),
      authorizerError: f.contextAuthorizerError(),
      errorType: f.contextErrorResponseType(),
      errorMessage: f.contextErrorMessage(),
      xrayTraceId: f.contextXrayTraceId(),
    }),
  );
}
