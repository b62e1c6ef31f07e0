/**
 * The tenant adapters against DynamoDB Local: tokens (hash lookup, listing, revocation), the
 * create bucket under concurrency and the active-job quota with its recount (one write per
 * admitted create), and executor slots
 * with expiry; and `npm run admin` end to end.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DynamoAdmittedJobs } from '#adapters/dynamodb/admitted-jobs';
import { DynamoJobAdmissions } from '#adapters/dynamodb/job-admissions';
import { DynamoRunSlots } from '#adapters/dynamodb/run-slots';
import { tenantKeys } from '#adapters/dynamodb/tenant-keys';
import { DynamoTenantRepository } from '#adapters/dynamodb/tenant-repository';
import { LocalSecretCipher } from '#adapters/secrets/local-cipher';
import { ulidIds } from '#adapters/ulid-ids';
import { tokenHash } from '#core/tenants/api-tokens';
import { authenticate, createTenant, issueToken, revokeToken } from '#core/tenants/manage-tenants';
import { type AdminIo, runAdmin } from '../../bin/admin-commands.ts';
import { type EmulatedAws, startEmulatedAws } from '../support/emulated-aws.ts';

let aws: EmulatedAws;
let repository: DynamoTenantRepository;
let table: string;
let admittedJobs: DynamoAdmittedJobs;
const ids = ulidIds();
const LOCAL_KEY = LocalSecretCipher.generateKey();

beforeAll(async () => {
  aws = await startEmulatedAws();
  table = aws.resources.tables.tenants;
  repository = new DynamoTenantRepository(aws.documents, table);
  admittedJobs = new DynamoAdmittedJobs(aws.documents, table);
}, 60_000);
afterAll(async () => {
  await aws?.stop();
});

const deps = () => ({ tenants: repository, ids });

async function endpointOf(emulated: EmulatedAws): Promise<string> {
  const endpoint = await emulated.dynamodb.config.endpoint?.();
  if (!endpoint) throw new Error('the emulator client has no endpoint');
  return `${endpoint.protocol}//${endpoint.hostname}:${endpoint.port}`;
}

describe('tenant repository', () => {
  it('finds a token by its hash only, lists prefixes, and revokes by id', async () => {
    const tenant = await createTenant(deps(), 'team', Date.now());
    const issued = await issueToken(deps(), tenant.tenantId, Date.now());

    expect(await authenticate(deps(), issued.token)).toEqual({ tenantId: tenant.tenantId, tokenId: issued.tokenId });
    const scan = await aws.documents.send(new ScanCommand({ TableName: table }));
    expect(JSON.stringify(scan.Items)).not.toContain(issued.token);
    expect(JSON.stringify(scan.Items)).toContain(tokenHash(issued.token));

    await revokeToken(deps(), issued.tokenId, 1234);
    expect(await authenticate(deps(), issued.token)).toBeUndefined();
    expect(await repository.listTokens(tenant.tenantId)).toEqual([
      expect.objectContaining({ tokenId: issued.tokenId, prefix: issued.token.slice(0, 16), revokedAt: 1234 }),
    ]);
  });

  it('refuses a token for a tenant that does not exist', async () => {
    await expect(issueToken(deps(), 'no-such-tenant', Date.now())).rejects.toThrow(/not found/);
  });
});

/** The tenant item's active-job counter, as the admissions left it. */
async function activeJobsOf(tenantId: string): Promise<number | undefined> {
  const { Item } = await aws.documents.send(new GetCommand({ TableName: table, Key: tenantKeys.tenant(tenantId) }));
  return Item?.activeJobs;
}

/** Plenty of room under the active-job quota: tests of the bucket alone. */
const ROOMY = 1_000_000;

describe('create bucket', () => {
  it('lets exactly `burst` of many concurrent requests through, and tells the others when to retry', async () => {
    const tenant = await createTenant(deps(), 'bucket', Date.now());
    const admissions = new DynamoJobAdmissions(aws.documents, table, aws.resources.tables.jobs);
    const now = Date.now();

    const answers = await Promise.all(
      Array.from({ length: 30 }, () => admissions.admit(tenant.tenantId, { perSecond: 1, burst: 10 }, ROOMY, now)),
    );

    expect(answers.filter((a) => a.admitted)).toHaveLength(10);
    const refused = answers.filter((a) => !a.admitted);
    expect(refused.every((a) => a.reason === 'rate' && a.retryAfterSeconds >= 1)).toBe(true);
    expect((await admissions.admit(tenant.tenantId, { perSecond: 1, burst: 10 }, ROOMY, now + 1_000)).admitted).toBe(
      true,
    );
  });
});

describe('admission writes', () => {
  /** The admissions' UpdateItems, and how many failed their condition (each a write unit on AWS). */
  async function countingAdmissions() {
    const counts = { updates: 0, failed: 0 };
    // A client of its own: a document client shares its middleware with the client it wraps.
    const base = new DynamoDBClient({
      endpoint: await endpointOf(aws),
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const client = DynamoDBDocumentClient.from(base);
    client.middlewareStack.add(
      (next) => async (args) => {
        counts.updates++;
        try {
          return await next(args);
        } catch (error) {
          if ((error as Error).name === 'ConditionalCheckFailedException') counts.failed++;
          throw error;
        }
      },
      { step: 'initialize', name: 'countUpdates' },
    );
    return { admissions: new DynamoJobAdmissions(client, table, aws.resources.tables.jobs), counts };
  }

  it('takes a token and a place with one write per create, a busy bucket too', async () => {
    const tenant = await createTenant(deps(), 'busy', Date.now());
    const { admissions, counts } = await countingAdmissions();
    const limits = { perSecond: 10, burst: 100 };
    const now = Date.now();

    for (let i = 0; i < 20; i++)
      expect((await admissions.admit(tenant.tenantId, limits, 50, now + i)).admitted).toBe(true);

    // The first finds the bucket idle; every later one, seen busy, goes straight to the busy update.
    expect(counts).toEqual({ updates: 20, failed: 0 });
    expect(await activeJobsOf(tenant.tenantId)).toBe(20);
    // The same writes counted the 20 jobs ACTIVE for the job-status counters.
    expect(await admittedJobs.of(tenant.tenantId)).toBe(20);
  });

  it('gives a place and a count back on release, the count even when a recount left no place to give', async () => {
    const tenant = await createTenant(deps(), 'released', Date.now());
    const admissions = new DynamoJobAdmissions(aws.documents, table, aws.resources.tables.jobs);
    const limits = { perSecond: 100, burst: 100 };
    for (let i = 0; i < 3; i++) await admissions.admit(tenant.tenantId, limits, 10, Date.now());
    await admissions.release(tenant.tenantId);
    expect([await activeJobsOf(tenant.tenantId), await admittedJobs.of(tenant.tenantId)]).toEqual([2, 2]);

    // A recount found none of these jobs stored yet: the counter is 0, the counts are still owed back.
    await aws.documents.send(
      new UpdateCommand({
        TableName: table,
        Key: tenantKeys.tenant(tenant.tenantId),
        UpdateExpression: 'SET activeJobs = :zero',
        ExpressionAttributeValues: { ':zero': 0 },
      }),
    );
    await admissions.release(tenant.tenantId);
    expect([await activeJobsOf(tenant.tenantId), await admittedJobs.of(tenant.tenantId)]).toEqual([0, 1]);
    await admissions.admit(tenant.tenantId, limits, 10, Date.now());
    // Every tenant with its share, from one Scan that reads nothing else of the table.
    const all = await admittedJobs.all();
    expect(all.get(tenant.tenantId)).toBe(2);
    expect(all.get('quota')).toBeUndefined(); // a tenant's name is not its id
    expect([...all.keys()].sort()).toEqual((await repository.listTenants()).map((t) => t.tenantId).sort());
  });

  it('refuses at the burst with one failed write that takes no place, and takes the idle update once drained', async () => {
    const tenant = await createTenant(deps(), 'drained', Date.now());
    const { admissions, counts } = await countingAdmissions();
    const limits = { perSecond: 1, burst: 2 };
    const now = Date.now();
    expect((await admissions.admit(tenant.tenantId, limits, ROOMY, now)).admitted).toBe(true);
    expect((await admissions.admit(tenant.tenantId, limits, ROOMY, now)).admitted).toBe(true);
    counts.updates = 0;
    counts.failed = 0;

    expect(await admissions.admit(tenant.tenantId, limits, ROOMY, now)).toEqual({
      admitted: false,
      reason: 'rate',
      retryAfterSeconds: 1,
    });
    expect(counts).toEqual({ updates: 1, failed: 1 });
    expect(await activeJobsOf(tenant.tenantId)).toBe(2);

    // Ten seconds on, past the `createTat` it last saw: the bucket is taken idle, with one write.
    expect((await admissions.admit(tenant.tenantId, limits, ROOMY, now + 10_000)).admitted).toBe(true);
    expect(counts).toEqual({ updates: 2, failed: 1 });
  });
});

describe('active-job quota', () => {
  const job = (tenantId: string, n: number, status = 'ACTIVE') =>
    aws.documents.send(
      new PutCommand({
        TableName: aws.resources.tables.jobs,
        Item: { tenantId, jobId: `01J00000000000000000000${String(n).padStart(3, '0')}`, status },
      }),
    );
  const roomyBucket = { perSecond: 1_000, burst: 1_000 };

  it('refuses beyond the quota, counting only jobs that can still fire once it is reached', async () => {
    const tenant = await createTenant(deps(), 'quota', Date.now());
    const admissions = new DynamoJobAdmissions(aws.documents, table, aws.resources.tables.jobs);
    const admit = async () => (await admissions.admit(tenant.tenantId, roomyBucket, 3, Date.now())).admitted;
    for (let n = 0; n < 3; n++) {
      expect(await admit()).toBe(true);
      await job(tenant.tenantId, n);
    }

    const atQuota = await admissions.admit(tenant.tenantId, roomyBucket, 3, Date.now());
    await job(tenant.tenantId, 0, 'CANCELLED'); // one job ends
    await new Promise((resolve) => setTimeout(resolve, 2_100)); // recounts are at least 2 s apart
    const afterEnd = await admit();
    const full = await admit();

    expect(atQuota).toEqual({ admitted: false, reason: 'quota' });
    expect([afterEnd, full]).toEqual([true, false]);
  });

  it('takes no token from a create refused at the quota', async () => {
    const tenant = await createTenant(deps(), 'no-token', Date.now());
    const admissions = new DynamoJobAdmissions(aws.documents, table, aws.resources.tables.jobs);
    const bucket = { perSecond: 1, burst: 2 };
    const now = Date.now();
    await job(tenant.tenantId, 0);
    expect((await admissions.admit(tenant.tenantId, bucket, 1, now)).admitted).toBe(true);
    await job(tenant.tenantId, 1);

    expect(await admissions.admit(tenant.tenantId, bucket, 1, now)).toEqual({ admitted: false, reason: 'quota' });
    await admissions.release(tenant.tenantId); // as a create that failed before its job was stored
    await job(tenant.tenantId, 1, 'COMPLETED');
    // The refused create left the bucket's second token: with room again, it is admitted at once.
    expect((await admissions.admit(tenant.tenantId, bucket, 5, now)).admitted).toBe(true);
    expect(await admissions.admit(tenant.tenantId, bucket, 5, now)).toMatchObject({ admitted: false, reason: 'rate' });
  });

  it('lets concurrent creates take the room left, overshooting at most by the creates in flight at a recount', async () => {
    const tenant = await createTenant(deps(), 'race', Date.now());
    const admissions = new DynamoJobAdmissions(aws.documents, table, aws.resources.tables.jobs);
    for (let n = 0; n < 2; n++) await job(tenant.tenantId, n);
    for (let n = 0; n < 2; n++) await admissions.admit(tenant.tenantId, roomyBucket, 5, Date.now());

    const admitted = await Promise.all(
      Array.from(
        { length: 8 },
        async () => (await admissions.admit(tenant.tenantId, roomyBucket, 5, Date.now())).admitted,
      ),
    );

    // 3 places were left; the refused ones trigger one recount, which finds the 2 stored jobs and
    // the 3 new admissions' jobs not yet written: the documented bound is max + creates in flight.
    expect(admitted.filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(admitted.filter(Boolean).length).toBeLessThanOrEqual(3 + 3);
  });
});

describe('executor slots', () => {
  it('holds at most `cap` slots, frees released ones, and reclaims expired ones', async () => {
    const slots = new DynamoRunSlots(aws.documents, table);
    const now = Date.now();

    const taken = await Promise.all(
      ['r1', 'r2', 'r3', 'r4'].map((run) => slots.acquire('slot-tenant', run, 2, now + 60_000, now)),
    );
    expect(taken.filter(Boolean)).toHaveLength(2);
    const holder = ['r1', 'r2', 'r3', 'r4'][taken.indexOf(true)] as string;
    await slots.release('slot-tenant', holder);
    expect(await slots.acquire('slot-tenant', 'r5', 2, now + 60_000, now)).toBe(true);
    expect(await slots.acquire('slot-tenant', 'r6', 2, now + 60_000, now)).toBe(false);
    // Past the expiry of every slot (their holders died): taken over.
    expect(await slots.acquire('slot-tenant', 'r7', 2, now + 200_000, now + 120_000)).toBe(true);
    expect(await slots.acquire('slot-tenant', 'r8', 2, now + 200_000, now + 120_000)).toBe(true);
    expect(await slots.acquire('slot-tenant', 'r9', 2, now + 200_000, now + 120_000)).toBe(false);
  });
});

describe('executor slots, a tenant first run racing another', () => {
  it("takes a slot when its first take found no item and the read after it finds the other run's new empty item", async () => {
    // Its own client, so that the race can be staged between the take and the read that follows it.
    const endpoint = await aws.dynamodb.config.endpoint?.();
    const raw = new DynamoDBClient({
      region: 'us-east-1',
      endpoint: `http://${endpoint?.hostname}:${endpoint?.port}`,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const documents = DynamoDBDocumentClient.from(raw);
    let staged = false;
    raw.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'GetItemCommand' && !staged) {
          // The concurrent first run creates the empty slots item just before this read.
          staged = true;
          await aws.documents.send(
            new PutCommand({ TableName: table, Item: { ...tenantKeys.runSlots('first-race'), slots: {} } }),
          );
        }
        return next(args);
      },
      { step: 'initialize', name: 'stageRace' },
    );
    const now = Date.now();
    expect(await new DynamoRunSlots(documents, table).acquire('first-race', 'r1', 2, now + 60_000, now)).toBe(true);
    expect(staged).toBe(true);
    raw.destroy();
  });
});

describe('npm run admin', () => {
  function io(): AdminIo & { lines: string[] } {
    const lines: string[] = [];
    return {
      lines,
      env: { CHRONOS_TENANTS_TABLE: table, SECRETS_LOCAL_KEY: LOCAL_KEY },
      out: (text) => lines.push(text),
      err: () => undefined,
    };
  }

  it('creates a tenant and a token that authenticates, lists it by prefix and revokes it', async () => {
    process.env.AWS_ENDPOINT_URL_DYNAMODB = await endpointOf(aws);
    process.env.AWS_REGION = 'us-east-1';
    process.env.AWS_ACCESS_KEY_ID = 'local';
    process.env.AWS_SECRET_ACCESS_KEY = 'local';
    const run = async (...argv: string[]) => {
      const cli = io();
      expect(await runAdmin(argv, cli)).toBe(0);
      return JSON.parse(cli.lines.join('\n'));
    };

    const tenant = await run('tenants', 'create', 'Admin CLI team', '--quota', 'maxActiveJobs=7');
    const token = await run('tokens', 'create', tenant.tenantId);
    const listed = await run('tokens', 'list', tenant.tenantId);
    const tenants = await run('tenants', 'list');

    expect(tenant).toMatchObject({ name: 'Admin CLI team', quotas: { maxActiveJobs: 7 } });
    // The first signing secret, shown once; listed afterwards by prefix only.
    expect(tenant.signingSecret.secret).toMatch(/^whsec_/);
    const secrets = await run('signing-secrets', 'list', tenant.tenantId);
    expect(secrets).toEqual([
      expect.objectContaining({
        secretId: tenant.signingSecret.secretId,
        prefix: tenant.signingSecret.secret.slice(0, 10),
      }),
    ]);
    expect(JSON.stringify(secrets)).not.toContain(tenant.signingSecret.secret);
    const rotated = await run('signing-secrets', 'rotate', tenant.tenantId, '--overlap-hours', '2');
    expect(
      (await run('signing-secrets', 'list', tenant.tenantId)).map((s: { secretId: string }) => s.secretId),
    ).toEqual([rotated.secretId, tenant.signingSecret.secretId]);
    expect(await authenticate(deps(), token.token)).toEqual({ tenantId: tenant.tenantId, tokenId: token.tokenId });
    expect(listed).toEqual([expect.objectContaining({ tokenId: token.tokenId, prefix: token.token.slice(0, 16) })]);
    expect(JSON.stringify(listed)).not.toContain(token.token);
    expect(tenants.map((t: { tenantId: string }) => t.tenantId)).toContain(tenant.tenantId);

    await run('tokens', 'revoke', token.tokenId);
    expect(await authenticate(deps(), token.token)).toBeUndefined();
  });

  it('creates no tenant when it could not seal the tenant’s signing secret', async () => {
    const before = (await repository.listTenants()).length;
    const cli = { ...io(), env: { CHRONOS_TENANTS_TABLE: table } };
    await expect(runAdmin(['tenants', 'create', 'no key'], cli)).rejects.toThrow(/SECRETS_KMS_KEY_ID/);
    expect(await repository.listTenants()).toHaveLength(before);
  });

  it('works as `npm run admin` in its own process, reading the table from the environment', async () => {
    const endpoint = await endpointOf(aws);
    const env = {
      ...process.env,
      CHRONOS_TENANTS_TABLE: table,
      AWS_ENDPOINT_URL_DYNAMODB: endpoint,
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      SECRETS_LOCAL_KEY: LOCAL_KEY,
    };
    const exec = promisify(execFile);
    const created = await exec('npm', ['run', '--silent', 'admin', '--', 'tenants', 'create', 'spawned'], { env });
    const tenant = JSON.parse(created.stdout);
    const unknown = await exec('npm', ['run', '--silent', 'admin', '--', 'tokens', 'revoke', 'nope'], { env }).catch(
      (error: { code: number; stderr: string }) => error,
    );

    expect(tenant.name).toBe('spawned');
    expect(tenant.signingSecret.secret).toMatch(/^whsec_/);
    expect(await repository.getTenant(tenant.tenantId)).toMatchObject({ name: 'spawned' });
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('token nope not found') });
  }, 60_000);
});
