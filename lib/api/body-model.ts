/**
 * The API Gateway model of a route's JSON body: a JSON object, and nothing more.
 *
 * Why not the whole schema: API Gateway answers any model failure with one `BAD_REQUEST_BODY`
 * whose reason is its validator's free text, so a client would learn "the body is invalid" where
 * the handler says which field and why (`schedule.expression: has 6 fields, expected 5`), which
 * is the API's contract (docs/api.md, "Errors"). So the gateway refuses only what no handler could
 * name better — a body that is not JSON, or not a JSON object — and every field is checked by the
 * handler against the same schema file (schemas/), which names it. The local gateway applies this
 * model from the synthesized template (functions/local/gateway-validation.ts), so the tests see
 * exactly what API Gateway does.
 */
import * as apigateway from 'aws-cdk-lib/aws-apigateway';

/** The model for a request schema from schemas/ (its title and description kept for the console). */
export function bodyModel(schema: { title?: unknown; description?: unknown }): apigateway.JsonSchema {
  return {
    schema: apigateway.JsonSchemaVersion.DRAFT4,
    ...(typeof schema.title === 'string' ? { title: schema.title } : {}),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    type: apigateway.JsonSchemaType.OBJECT,
  };
}
