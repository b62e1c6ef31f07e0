/**
 * Function timeouts and the queue settings derived from them. The stateful stack (queue
 * visibility) and the stateless stack (function timeouts) both read these, so they cannot drift.
 */

import { Duration } from 'aws-cdk-lib';
import { MAX_TIMEOUT_SECONDS } from '#core/limits';

export const API_TIMEOUT = Duration.seconds(10);
/** Below the one-minute schedule, so two scans of the same tick never overlap for long. */
export const SCANNER_TIMEOUT = Duration.seconds(50);
/** The longest target call plus room to record its outcome. */
export const EXECUTOR_TIMEOUT = Duration.seconds(MAX_TIMEOUT_SECONDS + 30);
export const COMPLETION_TIMEOUT = Duration.seconds(30);
/** Long enough for a batch of notices, each bounded by its 10 s call, signing and the job read. */
export const NOTIFIER_TIMEOUT = Duration.seconds(30);
/** AWS's advice for SQS event sources: visibility at least six times the consumer's timeout. */
export const DISPATCH_VISIBILITY_TIMEOUT = Duration.seconds(EXECUTOR_TIMEOUT.toSeconds() * 6);
