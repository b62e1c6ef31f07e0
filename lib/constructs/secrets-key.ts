import { RemovalPolicy } from 'aws-cdk-lib';
import * as kms from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';

export interface SecretsKeyProps {
  retainData: boolean;
}

/**
 * The KMS key that wraps the data keys of secret target headers (envelope encryption,
 * functions/adapters/secrets/kms-cipher.ts). Yearly automatic rotation: KMS keeps the old key
 * material, so secrets sealed before a rotation still open.
 */
export class SecretsKey extends Construct {
  public readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: SecretsKeyProps) {
    super(scope, id);
    this.key = new kms.Key(this, 'Key', {
      description: 'Chronos: wraps the data keys of secret target headers',
      enableKeyRotation: true,
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
  }
}
