/**
 * How many connections the bench's targets let wait to be accepted, and a counter that shows when
 * that was not enough.
 *
 * A burst opens one connection per call, within milliseconds when the executor keeps up. Node
 * listens with a backlog of 511 by default; on the bench machine, one process opening 1,000
 * connections at once to such a server overflowed its accept queue for about 17 % of them, and the
 * kernel sent each of those SYNs again a second later (its initial retransmission timeout): those
 * calls arrived 1.1–1.3 s late however fast they were made (p99 1.23 s; 0.55–0.65 s with a backlog
 * of 4,096). The precision runs start their calls over a few hundred milliseconds and overflowed
 * nothing so far, but a faster executor would: a second lost there is the target's, not the
 * scheduler's. So the bench's targets listen with a backlog sized for its largest burst, as an
 * endpoint expecting such bursts must (Linux caps it at net.core.somaxconn), and every workload
 * reports the overflows it saw (`listenOverflowsSince`), so that one never passes for lag.
 */
import { readFileSync } from 'node:fs';

/** The bench targets' listen backlog: Linux's default somaxconn since 5.4. */
export const TARGET_LISTEN_BACKLOG = 4_096;

/**
 * Listening sockets of the plain target, on one port with SO_REUSEPORT, each with its own accept
 * queue: the largest burst (5,000 calls at once, precision) is more than one queue of 4,096 holds,
 * and somaxconn caps the backlog. With one queue, 137–352 of its calls came a second late; the
 * kernel spreads new connections over the sockets, and one process still accepts them all.
 */
export const TARGET_LISTEN_SOCKETS = 2;

/**
 * TcpExt ListenOverflows from the text of /proc/net/netstat (header line, then values line, per
 * protocol); undefined when the counter is not there.
 */
export function parseListenOverflows(netstat: string): number | undefined {
  const lines = netstat.split('\n').filter((line) => line.startsWith('TcpExt:'));
  const [names, values] = lines.map((line) => line.trim().split(/\s+/).slice(1));
  const at = names?.indexOf('ListenOverflows') ?? -1;
  const value = at >= 0 ? Number(values?.[at]) : Number.NaN;
  return Number.isInteger(value) && value >= 0 ? value : undefined;
}

/** The machine's listen overflows so far (this network namespace); undefined off Linux. */
export function listenOverflows(): number | undefined {
  try {
    return parseListenOverflows(readFileSync('/proc/net/netstat', 'utf8'));
  } catch {
    return undefined;
  }
}

/** Overflows since `before` (a `listenOverflows()` reading); undefined when either is unknown. */
export function listenOverflowsSince(before: number | undefined): number | undefined {
  const now = listenOverflows();
  return before === undefined || now === undefined ? undefined : now - before;
}
