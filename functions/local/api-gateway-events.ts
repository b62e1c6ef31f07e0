/**
 * Builds the events API Gateway (REST API, v1 proxy integration) hands to Lambda: the proxy event
 * for the integration and the REQUEST event for a Lambda authorizer.
 */
import type {
  APIGatewayEventRequestContextWithAuthorizer,
  APIGatewayProxyEvent,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import type { RouteMatch } from './route-matcher.ts';

/** What the local gateway knows about one incoming HTTP request. */
export interface IncomingApiRequest {
  method: string;
  /** Path without the query string, as the client sent it. */
  path: string;
  rawQuery: string;
  /** Node's `rawHeaders`: alternating names (case kept, as API Gateway keeps it) and values. */
  rawHeaders: readonly string[];
  /** UTF-8 body, null when the request had none. */
  body: string | null;
  sourceIp: string;
  requestId: string;
  receivedAt: Date;
}

export interface ApiStage {
  region: string;
  accountId: string;
  apiId: string;
  stage: string;
  domainName: string;
}

type Multi = Record<string, string[]>;

/** The authorizer's ARN for this request: `arn:aws:execute-api:<region>:<account>:<api>/<stage>/<METHOD>/<path>`. */
export function methodArn(stage: ApiStage, method: string, path: string): string {
  return `arn:aws:execute-api:${stage.region}:${stage.accountId}:${stage.apiId}/${stage.stage}/${method}${path}`;
}

/** The event a REQUEST authorizer receives before the integration runs. */
export function buildAuthorizerEvent(
  request: IncomingApiRequest,
  match: RouteMatch,
  stage: ApiStage,
): APIGatewayRequestAuthorizerEvent {
  const headers = collectHeaders(request.rawHeaders);
  const query = collectQuery(request.rawQuery);
  return {
    type: 'REQUEST',
    methodArn: methodArn(stage, request.method, request.path),
    resource: match.route.path,
    path: request.path,
    httpMethod: request.method,
    headers: lastValues(headers),
    multiValueHeaders: headers,
    pathParameters: match.pathParameters,
    queryStringParameters: lastValuesOrNull(query),
    multiValueQueryStringParameters: emptyToNull(query),
    stageVariables: null,
    requestContext: buildRequestContext(request, match, stage, undefined),
  };
}

/** The proxy event the integration receives; `authorizer` is what the authorizer allowed with. */
export function buildProxyEvent(
  request: IncomingApiRequest,
  match: RouteMatch,
  stage: ApiStage,
  authorizer: Record<string, unknown> | undefined,
): APIGatewayProxyEvent {
  const headers = collectHeaders(request.rawHeaders);
  const query = collectQuery(request.rawQuery);
  return {
    resource: match.route.path,
    path: request.path,
    httpMethod: request.method,
    headers: lastValues(headers),
    multiValueHeaders: headers,
    queryStringParameters: lastValuesOrNull(query),
    multiValueQueryStringParameters: emptyToNull(query),
    pathParameters: match.pathParameters,
    stageVariables: null,
    requestContext: buildRequestContext(request, match, stage, authorizer),
    body: request.body,
    isBase64Encoded: false,
  };
}

function buildRequestContext<T>(
  request: IncomingApiRequest,
  match: RouteMatch,
  stage: ApiStage,
  authorizer: T,
): APIGatewayEventRequestContextWithAuthorizer<T> {
  const userAgent = lastValues(collectHeaders(request.rawHeaders))['User-Agent'] ?? null;
  return {
    accountId: stage.accountId,
    apiId: stage.apiId,
    authorizer,
    domainName: stage.domainName,
    domainPrefix: stage.domainName.split('.')[0],
    extendedRequestId: request.requestId,
    httpMethod: request.method,
    identity: {
      accessKey: null,
      accountId: null,
      apiKey: null,
      apiKeyId: null,
      caller: null,
      clientCert: null,
      cognitoAuthenticationProvider: null,
      cognitoAuthenticationType: null,
      cognitoIdentityId: null,
      cognitoIdentityPoolId: null,
      principalOrgId: null,
      sourceIp: request.sourceIp,
      user: null,
      userAgent,
      userArn: null,
    },
    path: `/${stage.stage}${request.path}`,
    protocol: 'HTTP/1.1',
    requestId: request.requestId,
    requestTime: formatRequestTime(request.receivedAt),
    requestTimeEpoch: request.receivedAt.getTime(),
    resourceId: resourceId(match.route.path),
    resourcePath: match.route.path,
    stage: stage.stage,
  };
}

/** Header names keep the client's case; repeated headers keep every value in order. */
function collectHeaders(rawHeaders: readonly string[]): Multi {
  const headers: Multi = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    const existing = Object.keys(headers).find((key) => key.toLowerCase() === name.toLowerCase()) ?? name;
    headers[existing] = [...valuesOf(headers, existing), rawHeaders[i + 1] as string];
  }
  return headers;
}

function collectQuery(rawQuery: string): Multi {
  const query: Multi = {};
  for (const [name, value] of new URLSearchParams(rawQuery)) query[name] = [...valuesOf(query, name), value];
  return query;
}

/**
 * The values collected so far under `name`. Own properties only: a client may send a parameter or
 * header named `valueOf` or `constructor`, which a plain lookup would find on Object.prototype
 * (the fuzz test found exactly that).
 */
function valuesOf(multi: Multi, name: string): string[] {
  return Object.hasOwn(multi, name) ? (multi[name] as string[]) : [];
}

/** API Gateway's single-value maps keep the last value of a repeated name. */
function lastValues(multi: Multi): Record<string, string> {
  return Object.fromEntries(Object.entries(multi).map(([name, values]) => [name, values[values.length - 1] as string]));
}

function lastValuesOrNull(multi: Multi): Record<string, string> | null {
  return Object.keys(multi).length > 0 ? lastValues(multi) : null;
}

function emptyToNull(multi: Multi): Multi | null {
  return Object.keys(multi).length > 0 ? multi : null;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** `09/Apr/2015:12:34:56 +0000`, API Gateway's CLF-style request time. */
function formatRequestTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(date.getUTCDate())}/${MONTHS[date.getUTCMonth()]}/${date.getUTCFullYear()}:${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`;
}

/** A stable short id per resource path, like API Gateway's resource ids. */
function resourceId(resourcePath: string): string {
  let hash = 0;
  for (const char of resourcePath) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return hash.toString(36).padStart(6, '0').slice(0, 6);
}
