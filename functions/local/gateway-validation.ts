/**
 * API Gateway's request validation, applied by the local gateway with the checks the synthesized
 * template declares (aws-fidelity/gateway-models.ts): required request parameters present and not
 * blank, and a JSON body that is valid against the method's draft-04 model. As on AWS, a body is
 * validated only when the request's content type has a model (no Content-Type counts as
 * application/json), and a refusal is the BAD_REQUEST_BODY / BAD_REQUEST_PARAMETERS answer.
 * The reason's wording is Ajv's, not AWS's (which uses another validator): clients must not parse it.
 */
import AjvDraft04, { type ValidateFunction } from 'ajv-draft-04';
import ajvFormats from 'ajv-formats';
import type { GatewayRequestCheck, GatewayRequestChecks } from './aws-fidelity/gateway-models.ts';

export interface GatewayRequest {
  /** Route key as the route table writes it: `POST /v1/jobs/{id}`. */
  routeKey: string;
  /** Lower-case names. */
  headers: Readonly<Record<string, string | undefined>>;
  query: URLSearchParams;
  pathParameters: Readonly<Record<string, string>>;
  body: string | null;
}

export interface GatewayRefusal {
  kind: 'BAD_REQUEST_BODY' | 'BAD_REQUEST_PARAMETERS';
  /** What `$context.error.validationErrorString` carries on AWS. */
  reason: string;
}

export type GatewayRequestValidator = (request: GatewayRequest) => GatewayRefusal | undefined;

function isJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return true;
  return contentType.split(';')[0]?.trim().toLowerCase() === 'application/json';
}

function parameterValue(request: GatewayRequest, name: string): string | undefined {
  const [, , location, key = ''] = name.split('.');
  if (location === 'path') return request.pathParameters[key];
  if (location === 'querystring') return request.query.get(key) ?? undefined;
  if (location === 'header') return request.headers[key.toLowerCase()];
  return undefined;
}

/** A validator over the template's checks; routes the template does not know pass unchecked. */
export function gatewayRequestValidator(checks: GatewayRequestChecks): GatewayRequestValidator {
  // draft-04 as API Gateway reads models; formats are checked as its validator checks them.
  // CommonJS modules: their class and plugin are on `.default` under Node's ESM interop.
  const ajv = new AjvDraft04.default({ allErrors: false, strict: false });
  ajvFormats.default(ajv);
  const compiled = new Map<string, ValidateFunction>();
  const validatorOf = (key: string, check: GatewayRequestCheck): ValidateFunction | undefined => {
    if (!check.jsonModel) return undefined;
    const known = compiled.get(key);
    if (known) return known;
    const validate = ajv.compile(check.jsonModel);
    compiled.set(key, validate);
    return validate;
  };

  return (request) => {
    const check = checks.get(request.routeKey);
    if (!check) return undefined;
    if (check.validateParameters) {
      const missing = check.requiredParameters.filter((name) => !parameterValue(request, name)?.trim());
      if (missing.length > 0) {
        return {
          kind: 'BAD_REQUEST_PARAMETERS',
          reason: `Missing required request parameters: [${missing.map((n) => n.split('.').pop()).join(', ')}]`,
        };
      }
    }
    if (!check.validateBody || !isJson(request.headers['content-type'])) return undefined;
    const validate = validatorOf(request.routeKey, check);
    if (!validate) return undefined;
    let body: unknown;
    try {
      // API Gateway validates a request without a body as `{}` (POST /v1/signing-secrets needs none).
      body = request.body === null || request.body === '' ? {} : JSON.parse(request.body);
    } catch {
      return { kind: 'BAD_REQUEST_BODY', reason: 'Invalid request body' };
    }
    if (validate(body)) return undefined;
    const [first] = validate.errors ?? [];
    const where = first?.instancePath ? `${first.instancePath} ` : '';
    return { kind: 'BAD_REQUEST_BODY', reason: `[${where}${first?.message ?? 'is invalid'}]` };
  };
}
