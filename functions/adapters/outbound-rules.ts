/**
 * The outbound call rules from the environment: loopback targets only when
 * ALLOW_LOOPBACK_TARGETS=true; Chronos' own API hosts (CHRONOS_API_HOSTS) and, locally, its own
 * loopback ports (CHRONOS_LOCAL_PORTS: the local API and the emulators) never.
 */
import type { OutboundRules } from '#core/url-guard';
import { ENV } from './environment.ts';

/** The comma-separated entries of a variable, trimmed, empty ones dropped. */
function listOf(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}

/** Host names, lower case, without a trailing dot; a URL given by mistake counts by its host. */
function hostsOf(raw: string | undefined): string[] {
  return listOf(raw).map((entry) => {
    const host = entry.includes('://') ? new URL(entry).hostname : entry;
    return host.toLowerCase().replace(/\.+$/, '');
  });
}

function portsOf(raw: string | undefined): number[] {
  return listOf(raw).map((entry) => {
    const port = Number(entry);
    if (!Number.isInteger(port) || port < 1 || port > 65_535)
      throw new Error(`Environment variable ${ENV.chronosLocalPorts} must list ports (1-65535), got "${entry}"`);
    return port;
  });
}

/** Unset or `false`: loopback refused. Any other value than `true`/`false` is a deployment error. */
export function outboundRulesFromEnv(env: NodeJS.ProcessEnv = process.env): OutboundRules {
  const raw = env[ENV.allowLoopbackTargets];
  if (raw !== undefined && raw !== '' && raw !== 'false' && raw !== 'true')
    throw new Error(`Environment variable ${ENV.allowLoopbackTargets} must be "true" or "false", got "${raw}"`);
  const ownHosts = hostsOf(env[ENV.chronosApiHosts]);
  const ownLoopbackPorts = portsOf(env[ENV.chronosLocalPorts]);
  return {
    allowLoopback: raw === 'true',
    ...(ownHosts.length > 0 ? { ownHosts } : {}),
    ...(ownLoopbackPorts.length > 0 ? { ownLoopbackPorts } : {}),
  };
}
