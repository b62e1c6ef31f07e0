/**
 * What `npm start` prints once Chronos accepts requests: the lines a newcomer acts on (where the
 * API is, the tenant's and the operator's tokens, where the data lives, a first job, how to stop),
 * each once, in one screen.
 * test/e2e/npm-start.test.ts checks each of them against the running instance.
 */
import type { LocalChronos } from './chronos-local.ts';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from './emulators/local-clients.ts';

export function startBanner(chronos: LocalChronos, dataDir: string | undefined, operatorToken: string): string {
  const { queued, running } = chronos.restoredRuns;
  const data =
    dataDir === undefined
      ? 'in memory: gone when Chronos stops (keep it: npm start -- --data .chronos)'
      : `kept in ${dataDir}${queued + running > 0 ? ` (${queued + running} unfinished run(s) sent again)` : ''}`;
  const adminEnvironment = [
    `CHRONOS_TENANTS_TABLE=${chronos.tables.tenants}`,
    `AWS_ENDPOINT_URL_DYNAMODB=${chronos.endpoints.dynamodb}`,
    `AWS_REGION=${LOCAL_REGION}`,
    `AWS_ACCESS_KEY_ID=${LOCAL_CREDENTIALS.accessKeyId}`,
    `AWS_SECRET_ACCESS_KEY=${LOCAL_CREDENTIALS.secretAccessKey}`,
    // Seals signing secrets the way this runtime opens them (its local stand-in for KMS).
    `SECRETS_LOCAL_KEY=${chronos.secretsLocalKey}`,
  ].join(' ');
  return `
Chronos is running.
  Console    ${chronos.apiUrl}/   (sign in with the token below, or the operator token)
  API        ${chronos.apiUrl}
  Token      ${chronos.token}   (tenant ${chronos.tenantId}): Authorization: Bearer ${chronos.token}
  Operator   ${operatorToken}   (admin scope: GET /v1/monitoring/system, every tenant's stats)
  Data       ${data}
  Emulators  DynamoDB ${chronos.endpoints.dynamodb}   SQS ${chronos.endpoints.sqs}   CloudWatch ${chronos.endpoints.cloudwatch ?? '-'}
  Targets    loopback URLs allowed here (not on AWS); calls are signed (Standard Webhooks) with
             the dev tenant's signing secret ${chronos.signingSecret}

A first job, calling a URL once, now:
  curl -s -X POST ${chronos.apiUrl}/v1/jobs \\
    -H 'Authorization: Bearer ${chronos.token}' -H 'Content-Type: application/json' \\
    -d '{"target":{"url":"http://127.0.0.1:8080/hook"},"schedule":{"type":"once"}}'

Tenants and tokens, in another terminal (tokens and secrets are shown once):
  export ${adminEnvironment}
  npm run admin -- tenants create my-team
  npm run admin -- tokens create ${chronos.tenantId}

Stop with Ctrl-C. Every option: npm start -- --help
`;
}
