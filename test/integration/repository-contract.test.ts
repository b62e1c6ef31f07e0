/**
 * The repository contract (test/contract/repository-contract.ts: jobs, runs, run slots and create keys) against the in-memory fakes that
 * unit tests use, and against the DynamoDB adapters on one DynamoDB Local for the file: a unit
 * test that passes on the fakes then says something about the deployed system.
 */
import { DynamoCreateKeyRepository } from '#adapters/dynamodb/create-key-repository';
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { DynamoRunSlots } from '#adapters/dynamodb/run-slots';
import { describeRepositoryContract } from '../contract/repository-contract.ts';
import { startEmulatedAws } from '../support/emulated-aws.ts';
import { InMemoryCreateKeys } from '../support/fakes/in-memory-create-keys.ts';
import { InMemoryJobRepository } from '../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../support/fakes/in-memory-runs.ts';
import { InMemoryRunSlots } from '../support/fakes/in-memory-tenants.ts';

describeRepositoryContract('in-memory fakes', async () => ({
  jobs: new InMemoryJobRepository(),
  runs: new InMemoryRunRepository(),
  slots: new InMemoryRunSlots(),
  createKeys: new InMemoryCreateKeys(),
  shardCount: 1,
}));

describeRepositoryContract('DynamoDB adapters on DynamoDB Local', async () => {
  const aws = await startEmulatedAws();
  return {
    jobs: new DynamoJobRepository(aws.documents, aws.resources.tables.jobs),
    runs: new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4),
    slots: new DynamoRunSlots(aws.documents, aws.resources.tables.tenants),
    createKeys: new DynamoCreateKeyRepository(aws.documents, aws.resources.tables.tenants),
    shardCount: 4,
    stop: () => aws.stop(),
  };
});
