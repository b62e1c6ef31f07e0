import { ArnFormat, RemovalPolicy, Stack } from 'aws-cdk-lib';
import type * as apigateway from 'aws-cdk-lib/aws-apigateway';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { Construct } from 'constructs';
import type { WafConfig } from '../config.ts';

export interface ApiWafProps {
  stage: string;
  /** The API stage the web ACL protects. */
  apiStage: apigateway.Stage;
  limits: Pick<WafConfig, 'rateLimitPer5MinPerToken' | 'rateLimitPer5MinPerIp' | 'rateLimitPer5MinPerIpTotal'>;
  logRetention: logs.RetentionDays;
  retainLogs: boolean;
}

/** Body key of the rate-limit answer: the Chronos error shape, as the API's own 429s. */
const RATE_LIMITED_BODY = 'RateLimited';
/** WAF counts requests over a five-minute window; the answer tells the caller to back off a minute. */
const EVALUATION_WINDOW_SECONDS = 300;
const RETRY_AFTER_SECONDS = '60';

/**
 * A WAFv2 web ACL on the API stage, so no single caller can flood it: AWS's managed common rule
 * set and known-bad-inputs set, then rate-based rules over five minutes, answered 429 in the
 * Chronos error shape: one per `Authorization` header value (each token its own budget, so one
 * tenant's burst leaves the others theirs), one per source IP for requests without that header
 * (the public health route, probes), and a higher ceiling per source IP over every request (one
 * address inventing a new token per request gets no fresh budget with each). WAF logs blocked and counted requests only, with the
 * `Authorization` header redacted, to a log group whose name WAF requires (`aws-waf-logs-`).
 */
export class ApiWaf extends Construct {
  public readonly webAcl: wafv2.CfnWebACL;
  public readonly logs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ApiWafProps) {
    super(scope, id);
    const metricPrefix = `chronos-${props.stage}`;
    const visibility = (name: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName: `${metricPrefix}-${name}`,
      sampledRequestsEnabled: true,
    });
    const rateLimited: wafv2.CfnWebACL.RuleActionProperty = {
      block: {
        customResponse: {
          responseCode: 429,
          customResponseBodyKey: RATE_LIMITED_BODY,
          responseHeaders: [{ name: 'Retry-After', value: RETRY_AFTER_SECONDS }],
        },
      },
    };
    const authorizationHeader = { singleHeader: { Name: 'authorization' } };
    this.webAcl = new wafv2.CfnWebACL(this, 'WebAcl', {
      name: `chronos-${props.stage}-api`,
      description: `Chronos ${props.stage} API: managed rule sets and per-caller rate limits`,
      scope: 'REGIONAL',
      defaultAction: { allow: {} },
      visibilityConfig: visibility('api'),
      customResponseBodies: {
        [RATE_LIMITED_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({
            error: { code: 'RATE_LIMITED', message: 'Too many requests from this caller; retry later', details: [] },
          }),
        },
      },
      rules: [
        // Its 8 KB body limit would block jobs the API accepts (payloads up to the maxPayloadBytes
        // quota, 64 KB by default): counted only, the API bounds bodies itself.
        managedRuleGroup('AWSManagedRulesCommonRuleSet', 0, visibility('common-rule-set'), ['SizeRestrictions_BODY']),
        managedRuleGroup('AWSManagedRulesKnownBadInputsRuleSet', 1, visibility('known-bad-inputs')),
        {
          // Keyed on the header's value: a request without it is not counted here (the next rule counts it).
          name: 'RateLimitPerToken',
          priority: 10,
          action: rateLimited,
          statement: {
            rateBasedStatement: {
              limit: props.limits.rateLimitPer5MinPerToken,
              evaluationWindowSec: EVALUATION_WINDOW_SECONDS,
              aggregateKeyType: 'CUSTOM_KEYS',
              customKeys: [{ header: { name: 'authorization', textTransformations: [{ priority: 0, type: 'NONE' }] } }],
            },
          },
          visibilityConfig: visibility('rate-per-token'),
        },
        {
          name: 'RateLimitPerIpWithoutToken',
          priority: 11,
          action: rateLimited,
          statement: {
            rateBasedStatement: {
              limit: props.limits.rateLimitPer5MinPerIp,
              evaluationWindowSec: EVALUATION_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
              // Only requests that carry no Authorization header at all (a missing header has no size).
              scopeDownStatement: {
                notStatement: {
                  statement: {
                    sizeConstraintStatement: {
                      fieldToMatch: authorizationHeader,
                      comparisonOperator: 'GT',
                      size: 0,
                      textTransformations: [{ priority: 0, type: 'NONE' }],
                    },
                  },
                },
              },
            },
          },
          visibilityConfig: visibility('rate-per-ip'),
        },
        {
          name: 'RateLimitPerIpTotal',
          priority: 12,
          action: rateLimited,
          statement: {
            rateBasedStatement: {
              limit: props.limits.rateLimitPer5MinPerIpTotal,
              evaluationWindowSec: EVALUATION_WINDOW_SECONDS,
              aggregateKeyType: 'IP',
            },
          },
          visibilityConfig: visibility('rate-per-ip-total'),
        },
      ],
    });
    new wafv2.CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.apiStage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });

    this.logs = new logs.LogGroup(this, 'Logs', {
      logGroupName: `aws-waf-logs-chronos-${props.stage}-api`,
      retention: props.logRetention,
      removalPolicy: props.retainLogs ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    });
    new wafv2.CfnLoggingConfiguration(this, 'Logging', {
      resourceArn: this.webAcl.attrArn,
      // WAF wants the log group's ARN without the `:*` that LogGroup.logGroupArn ends with.
      logDestinationConfigs: [
        Stack.of(this).formatArn({
          service: 'logs',
          resource: 'log-group',
          resourceName: this.logs.logGroupName,
          arnFormat: ArnFormat.COLON_RESOURCE_NAME,
        }),
      ],
      // Tokens never reach the logs.
      redactedFields: [authorizationHeader],
      // Allowed requests are already in the API's access logs: only what WAF blocked or counted.
      loggingFilter: {
        DefaultBehavior: 'DROP',
        Filters: [
          {
            Behavior: 'KEEP',
            Requirement: 'MEETS_ANY',
            Conditions: [{ ActionCondition: { Action: 'BLOCK' } }, { ActionCondition: { Action: 'COUNT' } }],
          },
        ],
      },
    });
  }
}

/** An AWS managed rule group with its own actions (block), except `countOnly` rules, which only count. */
function managedRuleGroup(
  name: string,
  priority: number,
  visibilityConfig: wafv2.CfnWebACL.VisibilityConfigProperty,
  countOnly: readonly string[] = [],
): wafv2.CfnWebACL.RuleProperty {
  return {
    name,
    priority,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: {
        vendorName: 'AWS',
        name,
        ...(countOnly.length > 0
          ? { ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) }
          : {}),
      },
    },
    visibilityConfig,
  };
}
