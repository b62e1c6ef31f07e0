/**
 * One contract for the job and run repositories (and run slots, create keys), run against the in-memory fakes and against the
 * DynamoDB adapters on DynamoDB Local (test/integration/repository-contract.test.ts). The fakes
 * compare numbers and may page by anything; DynamoDB compares 13-digit string sort keys, pages by
 * base64 LastEvaluatedKey cursors and decides every write by a condition: the contract pins the
 * behaviour the core relies on where those two can drift apart — boundaries at equal
 * milliseconds, the change from 12- to 13-digit epoch ms on 2001-09-09, pages that neither skip
 * nor repeat, cursors refused as a ValidationError, and every conditional write.
 *
 * Each test uses its own tenant, job and shard names, so one table serves the whole file.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { ContractRepositories } from './contract-support.ts';
import { createKeyContract } from './create-key-contract.ts';
import { jobRepositoryContract } from './job-repository-contract.ts';
import { modelContract } from './model-contract.ts';
import { runRepositoryContract } from './run-repository-contract.ts';
import { runSlotsContract } from './run-slots-contract.ts';

export type { ContractRepositories } from './contract-support.ts';

export function describeRepositoryContract(name: string, makeRepositories: () => Promise<ContractRepositories>) {
  describe(`repository contract: ${name}`, () => {
    let repositories: ContractRepositories | undefined;
    beforeAll(async () => {
      repositories = await makeRepositories();
    });
    afterAll(() => repositories?.stop?.());

    const current = () => {
      if (!repositories) throw new Error('the repositories under contract were not made');
      return repositories;
    };
    jobRepositoryContract(current);
    runRepositoryContract(current);
    modelContract(current);
    runSlotsContract(current);
    createKeyContract(current);
  });
}
