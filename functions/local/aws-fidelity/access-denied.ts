/** The error AWS answers a call that no policy of the caller's role allows, as the SDK raises it. */

export interface DeniedCall {
  functionName: string;
  roleName: string;
  account: string;
  action: string;
  resource: string;
}

/**
 * Shaped like the SDK's AccessDeniedException (name, client fault, HTTP 400, AWS's message), so
 * handlers see on the local runtime what they would see on AWS: an error they do not expect.
 */
export class AccessDeniedException extends Error {
  override readonly name = 'AccessDeniedException';
  readonly $fault = 'client';
  readonly $metadata: { httpStatusCode: number; attempts: number; totalRetryDelay: number };
  readonly denied: DeniedCall;

  constructor(denied: DeniedCall) {
    super(
      `User: arn:aws:sts::${denied.account}:assumed-role/${denied.roleName}/${denied.functionName} ` +
        `is not authorized to perform: ${denied.action} on resource: ${denied.resource} ` +
        `because no identity-based policy allows the ${denied.action} action`,
    );
    this.$metadata = { httpStatusCode: 400, attempts: 1, totalRetryDelay: 0 };
    this.denied = denied;
  }
}
