/** The outbound call rules from the environment: loopback targets only when ALLOW_LOOPBACK_TARGETS=true. */
import type { OutboundRules } from '#core/url-guard';
import { ENV } from './environment.ts';

/** Unset or `false`: loopback refused. Any other value than `true`/`false` is a deployment error. */
export function outboundRulesFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundRules {
  const raw = env[ENV.allowLoopbackTargets];
  if (raw === undefined || raw === '' || raw === 'false') return { allowLoopback: false };
  if (raw === 'true') return { allowLoopback: true };
  throw new Error(`Environment variable ${ENV.allowLoopbackTargets} must be "true" or "false", got "${raw}"`);
}
