/**
 * The repository contract (test/contract/repository-contract.ts) against the in-memory fakes that
 * unit tests use, and against the DynamoDB adapters on one DynamoDB Local for the file: a unit
 * test that passes on the fakes then says something about the deployed system.
 */
import { DynamoJobRepository } from '#adapters/dynamodb/job-repository';
import { DynamoRunRepository } from '#adapters/dynamodb/run-repository';
import { describeRepositoryContract } from '../contract/repository-contract.ts';
import { startEmulatedAws } from '../support/emulated-aws.ts';
import { InMemoryJobRepository } from '../support/fakes/in-memory-jobs.ts';
import { InMemoryRunRepository } from '../support/fakes/in-memory-runs.ts';

describeRepositoryContract('in-memory fakes', async () => ({
  jobs: new InMemoryJobRepository(),
  runs: new InMemoryRunRepository(),
  shardCount: 1,
}));

describeRepositoryContract('DynamoDB adapters on DynamoDB Local', async () => {
  const aws = await startEmulatedAws();
  return {
    jobs: new DynamoJobRepository(aws.documents, aws.resources.tables.jobs),
    runs: new DynamoRunRepository(aws.documents, aws.resources.tables.runs, 4),
    shardCount: 4,
    stop: () => aws.stop(),
  };
});
