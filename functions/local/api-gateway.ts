/**
 * A local stand-in for the REST API: a node:http server that routes with ROUTES, runs the Lambda
 * REQUEST authorizer on protected routes as API Gateway does, invokes the route's handler with a
 * v1 proxy event and writes its result back. Gateway-made answers use Chronos' error shape.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type {
  APIGatewayAuthorizerResult,
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
} from 'aws-lambda';
import { ROUTES, type Route } from '#handlers/api/routes';
import { type ApiStage, buildAuthorizerEvent, buildProxyEvent, type IncomingApiRequest } from './api-gateway-events.ts';
import { policyAllows } from './authorizer-policy.ts';
import type { AuthorizerCache } from './aws-fidelity/authorizer-cache.ts';
import { isConsolePath, serveConsole } from './console-site.ts';
import { gatewayResponseCorsHeaders, preflightHeaders } from './cors-preflight.ts';
import type { GatewayRefusal, GatewayRequestValidator } from './gateway-validation.ts';
import { invokeLambda, type LambdaHandler } from './lambda-context.ts';
import { matchRoute } from './route-matcher.ts';

export type ApiHandler = LambdaHandler<APIGatewayProxyEvent, APIGatewayProxyResult>;
export type AuthorizerHandler = LambdaHandler<APIGatewayRequestAuthorizerEvent, APIGatewayAuthorizerResult>;

export interface ApiGatewayOptions {
  /** Handlers by route `handler` name (the file name under functions/handlers/api/). */
  handlers: Readonly<Record<string, ApiHandler>>;
  /** Required when any route is `authorized`. */
  authorizer?: AuthorizerHandler;
  routes?: readonly Route[];
  /** 0 picks a free port. */
  port?: number;
  host?: string;
  stage?: string;
  /** Timeout of every API function, as deployed (10 s). */
  functionTimeoutSeconds?: number;
  /** API Gateway's payload limit (10 MB). */
  maxBodyBytes?: number;
  /** The stage's corsAllowOrigins: preflights answered and gateway answers given CORS headers; empty: none. */
  corsAllowOrigins?: readonly string[];
  log?: (message: string, error?: unknown) => void;
  /**
   * API Gateway's request validation as the synthesized template declares it (models, validators):
   * a refused request never reaches its function, as on AWS.
   */
  validateRequest?: GatewayRequestValidator;
  /** The built console (console/dist), served outside `/v1` as CloudFront serves it on AWS. */
  consoleDir?: string;
  /** Sees every answer as the client gets it (the e2e tests check each against the OpenAPI document). */
  onResponse?: (exchange: GatewayExchange) => void;
  /** API Gateway's cache of the authorizer's answers, as the template declares it (aws-fidelity/authorizer-cache.ts). */
  authorizerCache?: AuthorizerCache;
}

/** One request's method and path (no query string) and the answer the gateway gave it. */
export interface GatewayExchange {
  method: string;
  path: string;
  status: number;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

export interface RunningApiGateway {
  /** Base URL without a trailing slash, e.g. `http://127.0.0.1:3000`. */
  url: string;
  port: number;
  stop(): Promise<void>;
}

export type GatewayErrorCode =
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'PAYLOAD_TOO_LARGE'
  | 'INTERNAL'
  | 'VALIDATION_FAILED'
  | GatewayRefusal['kind'];

const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;
const DEFAULT_FUNCTION_TIMEOUT_SECONDS = 10;

/** Starts listening and resolves once the server accepts connections. */
export async function startApiGateway(options: ApiGatewayOptions): Promise<RunningApiGateway> {
  const routes = options.routes ?? ROUTES;
  for (const route of routes) {
    if (!options.handlers[route.handler])
      throw new Error(`No handler for route ${route.method} ${route.path} (${route.handler})`);
    if (route.authorized && !options.authorizer)
      throw new Error(`Route ${route.method} ${route.path} needs an authorizer`);
  }
  const host = options.host ?? '127.0.0.1';
  const log = options.log ?? ((message, error) => console.error(message, error ?? ''));
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => {
      log('local API gateway failed to answer', error);
      if (!res.headersSent) sendError(res, 500, 'INTERNAL', 'Internal server error', randomUUID());
      else res.destroy();
    });
  });

  let stage: ApiStage;
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (options.onResponse) observeAnswer(req, res, options.onResponse);
    const requestId = randomUUID();
    const receivedAt = new Date();
    const body = await readBody(req, options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES);
    if (body === 'too-large') return sendError(res, 413, 'PAYLOAD_TOO_LARGE', 'Request body exceeds 10 MB', requestId);
    const target = new URL(req.url ?? '/', 'http://local');
    const method = req.method ?? 'GET';
    const cors = options.corsAllowOrigins ?? [];
    const origin = typeof req.headers.origin === 'string' ? req.headers.origin : undefined;
    if (cors.length > 0) {
      // Gateway-made answers below carry these; a Lambda answer replaces them with its own.
      for (const [name, value] of Object.entries(gatewayResponseCorsHeaders(origin))) res.setHeader(name, value);
      const onPath = routes.filter((route) => matchRoute([route], route.method, target.pathname));
      if (method === 'OPTIONS' && onPath.length > 0) {
        for (const [name, value] of Object.entries(
          preflightHeaders(
            origin,
            cors,
            routes.map((r) => r.method),
          ),
        )) {
          res.setHeader(name, value);
        }
        res.statusCode = 204;
        res.end();
        return;
      }
    }
    if (options.consoleDir && isConsolePath(target.pathname)) {
      if (serveConsole(options.consoleDir, req, res, target.pathname)) return;
    }
    const match = matchRoute(routes, method, target.pathname);
    if (!match) return sendError(res, 404, 'NOT_FOUND', `No route for ${method} ${target.pathname}`, requestId);
    const request: IncomingApiRequest = {
      method,
      path: target.pathname,
      rawQuery: target.search,
      rawHeaders: req.rawHeaders,
      body,
      sourceIp: req.socket.remoteAddress?.replace(/^::ffff:/, '') ?? '127.0.0.1',
      requestId,
      receivedAt,
    };
    const timeoutSeconds = options.functionTimeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS;

    let authorizerContext: Record<string, unknown> | undefined;
    if (match.route.authorized && options.authorizer) {
      const authEvent = buildAuthorizerEvent(request, match, stage);
      const cacheKey = options.authorizerCache?.keyOf(req.headers);
      const cached = cacheKey === undefined ? undefined : options.authorizerCache?.get(cacheKey, Date.now());
      let result: APIGatewayAuthorizerResult;
      try {
        result =
          cached ??
          (await invokeLambda(options.authorizer, authEvent, {
            functionName: 'authorizer',
            timeoutSeconds,
          }));
      } catch (error) {
        // API Gateway's convention: an authorizer that fails with exactly "Unauthorized" means 401.
        if (error instanceof Error && error.message === 'Unauthorized') {
          return sendError(res, 401, 'UNAUTHORIZED', 'Unauthorized', requestId);
        }
        log(`authorizer failed for ${method} ${request.path}`, error);
        return sendError(res, 500, 'INTERNAL', 'Authorizer failed', requestId);
      }
      if (!result?.policyDocument || typeof result.principalId !== 'string') {
        log(`authorizer returned an invalid result for ${method} ${request.path}`, result);
        return sendError(res, 500, 'INTERNAL', 'Authorizer returned an invalid policy', requestId);
      }
      // Its policy is judged again for each method, as API Gateway judges a cached policy.
      if (!cached && cacheKey !== undefined) options.authorizerCache?.put(cacheKey, result, Date.now());
      if (!policyAllows(result, authEvent.methodArn)) {
        return sendError(res, 403, 'FORBIDDEN', 'User is not authorized to access this resource', requestId);
      }
      authorizerContext = { ...(result.context ?? {}), principalId: result.principalId, integrationLatency: 0 };
    }

    // On AWS the method request is authorized first, then validated, then integrated.
    const refusal = options.validateRequest?.({
      routeKey: `${match.route.method} ${match.route.path}`,
      headers: Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)])),
      query: target.searchParams,
      pathParameters: match.pathParameters ?? {},
      body,
    });
    if (refusal) return sendRefusal(res, refusal, requestId);

    const event = buildProxyEvent(request, match, stage, authorizerContext);
    let result: APIGatewayProxyResult;
    try {
      result = await invokeLambda(options.handlers[match.route.handler] as ApiHandler, event, {
        functionName: `api-${match.route.handler}`,
        timeoutSeconds,
      });
    } catch (error) {
      log(`handler ${match.route.handler} failed for ${method} ${request.path}`, error);
      return sendError(res, 502, 'INTERNAL', 'Internal server error', requestId);
    }
    if (!result || typeof result.statusCode !== 'number') {
      log(`handler ${match.route.handler} returned a malformed proxy response`, result);
      return sendError(res, 502, 'INTERNAL', 'Malformed Lambda proxy response', requestId);
    }
    sendResult(res, result, requestId);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  stage = {
    region: process.env.AWS_REGION ?? 'us-east-1',
    accountId: '000000000000',
    apiId: 'local',
    stage: options.stage ?? 'local',
    domainName: `${host}:${port}`,
  };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

/** Calls `onResponse` with the answer once it is written: what was set on `res` and the body passed to end(). */
function observeAnswer(req: IncomingMessage, res: ServerResponse, onResponse: (exchange: GatewayExchange) => void) {
  const end = res.end.bind(res) as (chunk?: unknown) => ServerResponse;
  res.end = ((chunk?: unknown) => {
    const headers = Object.fromEntries(
      Object.entries(res.getHeaders()).map(([name, value]) => [name.toLowerCase(), String(value)]),
    );
    const body = chunk === undefined ? '' : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const path = new URL(req.url ?? '/', 'http://local').pathname;
    onResponse({ method: req.method ?? 'GET', path, status: res.statusCode, headers, body });
    return end(chunk);
  }) as ServerResponse['end'];
}

/** Reads the whole body; past the limit it keeps draining (so the client reads our 413) but stops storing. */
async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | null | 'too-large'> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size <= maxBytes) chunks.push(chunk);
  }
  if (size > maxBytes) return 'too-large';
  return size === 0 ? null : Buffer.concat(chunks).toString('utf8');
}

function sendResult(res: ServerResponse, result: APIGatewayProxyResult, requestId: string): void {
  // The function's answer: only the CORS headers it set itself, as with a Lambda proxy integration.
  for (const name of ['Access-Control-Allow-Origin', 'Access-Control-Expose-Headers', 'Vary']) res.removeHeader(name);
  for (const [name, value] of Object.entries(result.multiValueHeaders ?? {})) res.setHeader(name, value.map(String));
  for (const [name, value] of Object.entries(result.headers ?? {})) res.setHeader(name, String(value));
  res.setHeader('x-amzn-RequestId', requestId);
  const body = result.isBase64Encoded ? Buffer.from(result.body ?? '', 'base64') : (result.body ?? '');
  res.statusCode = result.statusCode;
  res.end(body);
}

/**
 * A request the gateway's validator refused, in the shape lib/api/gateway-responses.ts gives these
 * answers on AWS: BAD_REQUEST_BODY names the body, other refusals fall under DEFAULT_4XX.
 */
function sendRefusal(res: ServerResponse, refusal: GatewayRefusal, requestId: string): void {
  if (refusal.kind === 'BAD_REQUEST_BODY') {
    sendError(res, 400, 'VALIDATION_FAILED', 'The request is invalid', requestId, [
      { field: 'body', reason: refusal.reason },
    ]);
  } else {
    sendError(res, 400, refusal.kind, refusal.reason, requestId);
  }
}

function sendError(
  res: ServerResponse,
  status: number,
  code: GatewayErrorCode,
  message: string,
  requestId: string,
  details: readonly { field: string; reason: string }[] = [],
): void {
  res.statusCode = status;
  res.setHeader('content-type', 'application/json');
  res.setHeader('x-amzn-RequestId', requestId);
  res.end(JSON.stringify({ error: { code, message, details } }));
}
