/**
 * What IAM checks for one AWS SDK command: the action(s) and the resource ARN(s), as the service
 * authorizes them (a batch or transaction is checked per table and per kind of item; an SQS batch
 * send needs sqs:SendMessage, there is no sqs:SendMessageBatch action). Pure.
 */
import type { RequestContext } from './iam-policy.ts';

export type AwsService = 'DynamoDB' | 'DynamoDBStreams' | 'SQS' | 'CloudWatch';

export interface AuthorizationRequest {
  action: string;
  resource: string;
  /** Condition keys of the request, where the stack's policies use some. */
  context?: RequestContext;
}

/** Names in requests → ARNs, as the policy table resolved the template's resources. */
export interface ResourceArns {
  table(name: string): string;
  queueOfUrl(url: string): string;
  queueOfName(name: string): string;
}

/** SQS batch commands are authorized by the single message action. */
const SQS_BATCH_ACTIONS: Record<string, string> = {
  SendMessageBatch: 'SendMessage',
  DeleteMessageBatch: 'DeleteMessage',
  ChangeMessageVisibilityBatch: 'ChangeMessageVisibility',
};

/** What a transaction item needs, by its kind. */
const TRANSACT_WRITE_ACTIONS: Record<string, string> = {
  ConditionCheck: 'dynamodb:ConditionCheckItem',
  Put: 'dynamodb:PutItem',
  Update: 'dynamodb:UpdateItem',
  Delete: 'dynamodb:DeleteItem',
};

type Input = Record<string, unknown>;

/** The checks for one command (`commandName` as the SDK names it: `ScanCommand`). */
export function authorizationRequests(
  service: AwsService,
  commandName: string,
  input: Input,
  arns: ResourceArns,
): AuthorizationRequest[] {
  const operation = commandName.replace(/Command$/, '');
  switch (service) {
    case 'DynamoDB':
      return dynamoDbRequests(operation, input, arns);
    case 'DynamoDBStreams':
      return [{ action: `dynamodb:${operation}`, resource: streamArnOf(operation, input) }];
    case 'SQS':
      return sqsRequests(operation, input, arns);
    case 'CloudWatch':
      // The metric APIs Chronos calls support no resource-level permissions.
      return [{ action: `cloudwatch:${operation}`, resource: '*' }];
  }
}

/**
 * The stream a DynamoDB Streams call reads: named by `StreamArn`, or for GetRecords carried by the
 * shard iterator, which begins with it (`<stream arn>|…`, on AWS as in DynamoDB Local).
 */
function streamArnOf(operation: string, input: Input): string {
  if (operation === 'ListStreams') return '*';
  if (typeof input.StreamArn === 'string') return input.StreamArn;
  const iterator = typeof input.ShardIterator === 'string' ? input.ShardIterator : '';
  const arn = iterator.split('|')[0] ?? '';
  return arn.startsWith('arn:') ? arn : '*';
}

function dynamoDbRequests(operation: string, input: Input, arns: ResourceArns): AuthorizationRequest[] {
  const action = `dynamodb:${operation}`;
  switch (operation) {
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return Object.keys((input.RequestItems as Input | undefined) ?? {}).map((table) => ({
        action,
        resource: arns.table(table),
      }));
    case 'TransactWriteItems':
      return ((input.TransactItems as Input[] | undefined) ?? []).flatMap((item) =>
        Object.entries(item).map(([kind, body]) => ({
          action: TRANSACT_WRITE_ACTIONS[kind] ?? `dynamodb:${kind}`,
          resource: arns.table(String((body as Input).TableName)),
        })),
      );
    case 'TransactGetItems':
      return ((input.TransactItems as Input[] | undefined) ?? []).map((item) => ({
        action: 'dynamodb:GetItem',
        resource: arns.table(String((item.Get as Input | undefined)?.TableName)),
      }));
    case 'ListTables':
      return [{ action, resource: '*' }];
    default: {
      const table = arns.table(String(input.TableName));
      const resource = typeof input.IndexName === 'string' ? `${table}/index/${input.IndexName}` : table;
      return [{ action, resource, context: dynamoDbContext(input) }];
    }
  }
}

/**
 * `dynamodb:Select` and `dynamodb:Attributes` (the top-level attributes a read projects), the keys
 * that limit a read to some attributes.
 */
export function dynamoDbContext(input: Input): RequestContext {
  const context: Record<string, string | string[]> = {};
  if (typeof input.Select === 'string') context['dynamodb:Select'] = input.Select;
  const names = (input.ExpressionAttributeNames as Record<string, string> | undefined) ?? {};
  const attributes = new Set<string>(Array.isArray(input.AttributesToGet) ? (input.AttributesToGet as string[]) : []);
  if (typeof input.ProjectionExpression === 'string') {
    for (const path of input.ProjectionExpression.split(',')) {
      const top = (path.trim().split(/[.[]/)[0] ?? '').trim();
      if (top) attributes.add(top.startsWith('#') ? (names[top] ?? top) : top);
    }
  }
  if (attributes.size > 0) context['dynamodb:Attributes'] = [...attributes];
  return context;
}

function sqsRequests(operation: string, input: Input, arns: ResourceArns): AuthorizationRequest[] {
  const action = `sqs:${SQS_BATCH_ACTIONS[operation] ?? operation}`;
  if (typeof input.QueueUrl === 'string') return [{ action, resource: arns.queueOfUrl(input.QueueUrl) }];
  if (typeof input.QueueName === 'string') return [{ action, resource: arns.queueOfName(input.QueueName) }];
  return [{ action, resource: '*' }];
}
