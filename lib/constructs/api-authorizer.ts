import { Validations } from 'aws-cdk-lib';
import { Construct } from 'constructs';
import { ENV } from '#adapters/environment';
import { OBSERVABILITY_ENV } from '#adapters/observability-environment';
import { API_TIMEOUT } from '../timeouts.ts';
import { ChronosFunction, type SharedFunctionProps } from './chronos-function.ts';

export interface ApiAuthorizerProps {
  /** Interim single tenant that the dev token authenticates as. */
  devTenantId: string;
  /** Hex SHA-256 of the accepted bearer token (never the token itself). */
  devTokenSha256: string;
  /** Hex SHA-256 of the operator token that gets the admin scope; unset: none. */
  adminTokenSha256?: string;
  shared: Pick<SharedFunctionProps, 'logRetention' | 'retainLogs'>;
}

/** The Lambda REQUEST authorizer: turns a bearer token into a tenant id. It touches no table. */
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
        [ENV.devTenantId]: props.devTenantId,
        [ENV.devTokenSha256]: props.devTokenSha256,
        ...(props.adminTokenSha256 ? { [OBSERVABILITY_ENV.adminTokenSha256]: props.adminTokenSha256 } : {}),
      },
    });
    Validations.of(this.function).acknowledge({
      id: 'Serverless::Serverless-LambdaDLQ',
      reason:
        'API Gateway invokes the authorizer synchronously; a dead-letter queue only applies to asynchronous invocations',
    });
  }
}
