/**
 * What the synthesized REST API checks before it invokes a function, read from the template (not
 * from schemas/ or the route table): for each method, its request validator's switches, the
 * required request parameters, and the draft-04 model of its JSON body. The local gateway applies
 * exactly these, so a request API Gateway would refuse is refused locally too.
 */
import type { CfnResource, CfnTemplate } from './cfn-values.ts';

export interface GatewayRequestCheck {
  validateBody: boolean;
  validateParameters: boolean;
  /** `method.request.<location>.<name>` of the parameters the method requires. */
  requiredParameters: string[];
  /** The draft-04 schema of the `application/json` body, when the method has a model. */
  jsonModel?: Record<string, unknown>;
}

/** Checks by `<METHOD> <path>` (the path as the route table writes it: `/v1/jobs/{id}`). */
export type GatewayRequestChecks = ReadonlyMap<string, GatewayRequestCheck>;

function refOf(value: unknown): string | undefined {
  const ref = (value as { Ref?: unknown } | null)?.Ref;
  return typeof ref === 'string' ? ref : undefined;
}

/** The path of an AWS::ApiGateway::Resource, following ParentId up to the API's root. */
function resourcePath(resources: Record<string, CfnResource>, logicalId: string, seen: string[] = []): string {
  if (seen.includes(logicalId)) throw new Error(`API resource ${logicalId} is its own ancestor`);
  const resource = resources[logicalId];
  if (resource?.Type !== 'AWS::ApiGateway::Resource') throw new Error(`${logicalId} is not an API resource`);
  const { ParentId, PathPart } = resource.Properties as { ParentId: unknown; PathPart: string };
  const parent = refOf(ParentId);
  const above = parent ? resourcePath(resources, parent, [...seen, logicalId]) : '';
  return `${above}/${PathPart}`;
}

/** Every method of the template's REST API with what its validator checks. */
export function gatewayRequestChecks(template: CfnTemplate): GatewayRequestChecks {
  const resources = template.Resources;
  const checks = new Map<string, GatewayRequestCheck>();
  for (const resource of Object.values(resources)) {
    if (resource.Type !== 'AWS::ApiGateway::Method') continue;
    const method = resource.Properties as {
      HttpMethod: string;
      ResourceId: unknown;
      RequestValidatorId?: unknown;
      RequestParameters?: Record<string, boolean>;
      RequestModels?: Record<string, unknown>;
    };
    if (method.HttpMethod === 'OPTIONS') continue;
    const resourceId = refOf(method.ResourceId);
    // A method on the root resource has a GetAtt, not a Ref, for its resource.
    const path = resourceId ? resourcePath(resources, resourceId) : '/';
    const validatorId = refOf(method.RequestValidatorId);
    const validator = (validatorId ? resources[validatorId]?.Properties : undefined) as
      | { ValidateRequestBody?: boolean; ValidateRequestParameters?: boolean }
      | undefined;
    const modelId = refOf(method.RequestModels?.['application/json']);
    const model = modelId ? (resources[modelId]?.Properties as { Schema?: Record<string, unknown> }) : undefined;
    checks.set(`${method.HttpMethod} ${path}`, {
      validateBody: validator?.ValidateRequestBody === true,
      validateParameters: validator?.ValidateRequestParameters === true,
      requiredParameters: Object.entries(method.RequestParameters ?? {})
        .filter(([, required]) => required)
        .map(([name]) => name),
      ...(model?.Schema ? { jsonModel: model.Schema } : {}),
    });
  }
  return checks;
}
