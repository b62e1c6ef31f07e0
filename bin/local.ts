/**
 * `npm start`: Chronos on this machine, no AWS account needed. Starts DynamoDB Local and fauxqs,
 * provisions the tables and queues, and serves the API with the real handlers until Ctrl-C.
 */

import { startLocalChronos } from '#local/chronos-local';
import { ensureJava } from '#local/emulators/java';
import { LOCAL_CREDENTIALS, LOCAL_REGION } from '#local/emulators/local-clients';

ensureJava();
const port = Number(process.env.PORT ?? 3000);
if (!Number.isInteger(port) || port < 0) throw new Error(`PORT must be a port number, got "${process.env.PORT}"`);

console.log('Starting Chronos locally (DynamoDB Local + fauxqs)...');
const chronos = await startLocalChronos({ port, host: process.env.HOST ?? 'localhost' });

const adminCommand = [
  `CHRONOS_TENANTS_TABLE=${chronos.tables.tenants}`,
  `AWS_ENDPOINT_URL_DYNAMODB=${chronos.endpoints.dynamodb}`,
  `AWS_REGION=${LOCAL_REGION}`,
  `AWS_ACCESS_KEY_ID=${LOCAL_CREDENTIALS.accessKeyId}`,
  `AWS_SECRET_ACCESS_KEY=${LOCAL_CREDENTIALS.secretAccessKey}`,
  // Seals signing secrets the way this runtime opens them (its local stand-in for KMS).
  `SECRETS_LOCAL_KEY=${chronos.secretsLocalKey}`,
  'npm run admin --',
].join(' ');

console.log(`
Chronos is running.
  API        ${chronos.apiUrl}
  Token      ${chronos.token}   (tenant ${chronos.tenantId})
  DynamoDB   ${chronos.endpoints.dynamodb}   tables ${Object.values(chronos.tables).join(', ')}
  SQS        ${chronos.endpoints.sqs}   queue ${chronos.queues.dispatch.url}
  CloudWatch ${chronos.endpoints.cloudwatch}   GetMetricData of the queues' oldest-message age only
  Targets    loopback targets allowed; calls are signed (Standard Webhooks: webhook-id, webhook-timestamp,
             webhook-signature) with the dev tenant's signing secret ${chronos.signingSecret}

Create a job that calls a URL once, now:
  curl -s -X POST ${chronos.apiUrl}/v1/jobs \\
    -H 'Authorization: Bearer ${chronos.token}' -H 'Content-Type: application/json' \\
    -d '{"target":{"url":"http://127.0.0.1:8080/hook"},"schedule":{"type":"once"}}'

Tenants and tokens (another terminal; tokens are shown once):
  ${adminCommand} tenants create my-team              (prints its signing secret once)
  ${adminCommand} signing-secrets rotate <tenantId>
  ${adminCommand} tokens create <tenantId>
  ${adminCommand} tokens list ${chronos.tenantId}
  ${adminCommand} tokens revoke <tokenId>

Press Ctrl-C to stop.
`);

let stopping = false;
async function shutDown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  console.log(`\n${signal}: stopping Chronos...`);
  try {
    await chronos.stop();
    process.exit(0);
  } catch (error) {
    console.error('Chronos did not stop cleanly', error);
    process.exit(1);
  }
}
process.on('SIGINT', () => void shutDown('SIGINT'));
process.on('SIGTERM', () => void shutDown('SIGTERM'));
