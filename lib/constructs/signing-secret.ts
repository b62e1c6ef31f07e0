import { RemovalPolicy, Validations } from 'aws-cdk-lib';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';

export interface SigningSecretProps {
  retainData: boolean;
}

/**
 * The secret that signs every outbound call (Chronos-Signature). Generated at deploy time and kept
 * in Secrets Manager (KMS-encrypted); the executor receives it through a deploy-time dynamic
 * reference. One secret for all tenants until per-tenant signing secrets arrive with tenants.
 */
export class SigningSecret extends Construct {
  public readonly secret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: SigningSecretProps) {
    super(scope, id);
    this.secret = new secretsmanager.Secret(this, 'Secret', {
      description: 'Chronos: HMAC-SHA256 key that signs calls to targets (Chronos-Signature)',
      generateSecretString: { passwordLength: 64, excludePunctuation: true },
      removalPolicy: props.retainData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    Validations.of(this.secret).acknowledge({
      id: 'AwsSolutions::AwsSolutions-SMG4',
      reason:
        'Rotation is a two-key procedure targets must follow (SIGNING_SECRET_NEXT signs alongside the current key until targets accept it); an automatic rotation Lambda would break their verification',
    });
  }
}
