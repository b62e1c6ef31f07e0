/**
 * The executor kills. A random ready executor is SIGKILLed every `killEveryMs` until `killUntilMs`
 * and restarted at once. Beside them one kill is aimed, so that an at-most-once run lost to a kill
 * is certain rather than left to chance (the random kills mostly find at-least-once runs, or calls
 * already answered): the first call of an at-most-once run that the target holds past the job's
 * timeout (`hang`) kills the executor holding that run, mid-call. Kills go one at a time, so two
 * never land on one slot (a second restart would orphan the first one's process).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { parseRunId } from '#core/run-id';
import type { ChaosConfig } from './chaos-config.ts';
import type { ChaosTarget, TargetCall } from './chaos-target.ts';
import type { Fleet, Kill } from './fleet.ts';
import { seededRandom } from './seeded-random.ts';

/** The aimed kill's reason in its Kill record. */
export const AT_MOST_ONCE_CALL = 'at-most-once-call';

export class ExecutorKills {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly fleet: Fleet,
    private readonly slots: number[],
    private readonly progress: (line: string) => void,
  ) {}

  /** Kills at random from `start` until `killUntilMs`; resolves once the schedule is over. */
  async random(config: ChaosConfig, start: number): Promise<void> {
    const random = seededRandom(config.seed + 1);
    const [min, max] = config.killEveryMs;
    for (;;) {
      await sleep(min + random() * (max - min));
      if (Date.now() - start > config.killUntilMs) return;
      const draw = random();
      await this.killOne('random', () => {
        const ready = this.slots.filter((slot) => this.fleet.workers.get(`executor#${slot}`)?.isReady);
        return ready[Math.floor(draw * ready.length)];
      });
    }
  }

  /**
   * Until `untilMs` (from `start`), kills the executor holding the first held call of an
   * at-most-once run (`isAtMostOnce` of its job id). Resolves with that kill, or undefined when no
   * such call came in time.
   */
  aimAtMostOnce(
    target: ChaosTarget,
    isAtMostOnce: (jobId: string) => boolean,
    start: number,
    untilMs: number,
  ): Promise<Kill | undefined> {
    return new Promise((resolve) => {
      let done = false;
      let aiming = true;
      const stop = (kill: Kill | undefined) => {
        done = true;
        clearTimeout(timer);
        resolve(kill);
      };
      const timer = setTimeout(() => stop(undefined), start + untilMs - Date.now());
      target.onCall((call: TargetCall) => {
        const jobId = parseRunId(call.runId)?.jobId;
        if (done || !aiming || call.fault !== 'hang' || !jobId || !isAtMostOnce(jobId)) return;
        const holder = this.holderOf(call.runId);
        if (holder === undefined) return; // its batch-start not heard yet: the next such call
        aiming = false;
        // Behind a random kill, the call may have ended meanwhile: then no kill, and the aim goes on.
        const stillHeld = () => !done && !call.callerHungUp && this.holderOf(call.runId) === holder;
        void this.killOne(AT_MOST_ONCE_CALL, () => (stillHeld() ? holder : undefined)).then((kill) => {
          if (kill) stop(kill);
          else aiming = true;
        });
      });
    });
  }

  /** The executor slot whose batch in progress holds `runId`. */
  private holderOf(runId: string): number | undefined {
    return this.slots.find((slot) =>
      [...(this.fleet.workers.get(`executor#${slot}`)?.batches.values() ?? [])].some((runIds) =>
        runIds.includes(runId),
      ),
    );
  }

  /** Kills the slot `pick` names once the kills before it are done (none when it names none), and restarts it. */
  private killOne(reason: string, pick: () => number | undefined): Promise<Kill | undefined> {
    const next = this.chain.then(async () => {
      const slot = pick();
      if (slot === undefined) return undefined;
      const kill = await this.fleet.kill('executor', slot, reason);
      const what = reason === AT_MOST_ONCE_CALL ? ', aimed at an at-most-once call' : '';
      this.progress(`SIGKILLed executor ${slot} (pid ${kill.pid}) holding ${kill.heldRunIds.length} runs${what}`);
      this.fleet.start('executor', slot);
      return kill;
    });
    this.chain = next.catch(() => undefined);
    return next;
  }
}
