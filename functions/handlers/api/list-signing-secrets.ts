/** GET /v1/signing-secrets — the calling tenant's secrets that sign now: ids, prefixes, dates; never a value. */
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { listSigningSecrets } from '#core/tenants/signing-secrets';
import { signingSecretView } from '#core/views';
import { instrumented } from '../observability.ts';
import { signingSecretRepository } from '../wiring.ts';
import { httpErrors } from './http-errors.ts';
import { json } from './responses.ts';
import { tenantOf } from './tenant.ts';

export async function listSigningSecretsHandler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  const tenantId = tenantOf(event);
  const items = await listSigningSecrets({ secrets: signingSecretRepository() }, tenantId, Date.now());
  return json(200, { items: items.map(signingSecretView) });
}

export const handler = instrumented<APIGatewayProxyEvent, APIGatewayProxyResult>(listSigningSecretsHandler).use(
  httpErrors(),
);
