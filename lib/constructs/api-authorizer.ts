import { Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { API_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';

export interface ApiAuthorizerProps {
  /** Where tokens are looked up by their SHA-256 (read only). */
  tenantsTable: dynamodb.ITable;
  /** Hex SHA-256 of the operator token that gets the admin scope; unset: none. */
  adminTokenSha256?: string;
  shared: Pick<SharedFunctionProps, 'logRetention' | 'retainLogs'>;
}

/** The Lambda REQUEST authorizer: turns a bearer token into a tenant id with one read of the tenants table. */
export class ApiAuthorizer extends Construct {
  public readonly function: ChronosFunction;

  constructor(scope: Construct, id: string, props: ApiAuthorizerProps) {
    super(scope, id);
    this.function = new ChronosFunction(this, 'Function', {
      handlerFile: 'authorizer.ts',
      description: 'Chronos API authorizer: bearer token to tenant',
      timeout: API_TIMEOUT,
      ...props.shared,
      environment: {
        ...(props.adminTokenSha256 ? { [OBSERVABILITY_ENV.adminTokenSha256]: props.adminTokenSha256 } : {}),
      },
    });
    this.function.bindTable({ table: props.tenantsTable, access: 'read', envName: ENV.tenantsTable });
    Validations.of(this.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'API Gateway invokes the authorizer synchronously; a dead-letter queue only applies to asynchronous invocations',
    });
  }
}
