/**
 * Responses API Gateway produces itself (before or instead of a handler), rewritten into the
 * Chronos error shape `{"error":{"code","message","details"}}` so clients parse one format.
 */
import * as apigateway from 'aws-cdk-lib/aws-apigateway';

export interface ChronosGatewayResponse {
  type: apigateway.ResponseType;
  statusCode?: string;
  /** Chronos error code, or a VTL expression that yields one. */
  code: string;
  /** A JSON string literal, or a VTL variable that renders one (`$context.error.messageString` is pre-quoted). */
  messageJson: string;
  /** JSON array literal (may embed VTL); defaults to `[]`. */
  detailsJson?: string;
}

export const GATEWAY_RESPONSES: readonly ChronosGatewayResponse[] = [
  {
    type: apigateway.ResponseType.UNAUTHORIZED,
    statusCode: '401',
    code: 'UNAUTHORIZED',
    messageJson: '"Missing or invalid bearer token"',
  },
  {
    type: apigateway.ResponseType.ACCESS_DENIED,
    statusCode: '403',
    code: 'FORBIDDEN',
    messageJson: '"Access denied"',
  },
  {
    type: apigateway.ResponseType.BAD_REQUEST_BODY,
    statusCode: '400',
    // Same code and message as the handlers' own validation (functions/handlers/api/http-errors.ts).
    code: 'VALIDATION_FAILED',
    messageJson: '"The request is invalid"',
    detailsJson: '[{"field":"body","reason":"$context.error.validationErrorString"}]',
  },
  {
    // API Gateway answers an unknown path with 403 "Missing Authentication Token"; say what it is.
    type: apigateway.ResponseType.MISSING_AUTHENTICATION_TOKEN,
    statusCode: '404',
    code: 'NOT_FOUND',
    messageJson: '"No such route"',
  },
  {
    type: apigateway.ResponseType.DEFAULT_4XX,
    code: '$context.error.responseType',
    messageJson: '$context.error.messageString',
  },
  {
    type: apigateway.ResponseType.DEFAULT_5XX,
    code: '$context.error.responseType',
    messageJson: '$context.error.messageString',
  },
];

/** The `application/json` mapping template of one gateway response. */
export function errorTemplate(response: ChronosGatewayResponse): string {
  return `{"error":{"code":"${response.code}","message":${response.messageJson},"details":${response.detailsJson ?? '[]'}}}`;
}
