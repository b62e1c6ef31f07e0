import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';

/** True for the error DynamoDB raises when a write's condition does not hold. */
export function isConditionFailure(error: unknown): error is ConditionalCheckFailedException {
  return (
    error instanceof ConditionalCheckFailedException ||
    (error as Error | undefined)?.name === 'ConditionalCheckFailedException'
  );
}

/** The item a failed conditional write returned with ReturnValuesOnConditionCheckFailure=ALL_OLD. */
export function itemOfConditionFailure<T>(error: ConditionalCheckFailedException): T | undefined {
  return error.Item ? (unmarshall(error.Item) as T) : undefined;
}
