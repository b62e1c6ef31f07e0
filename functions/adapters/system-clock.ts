import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '#core/ports';

/** Wall-clock time. */
export const systemClock: Clock = {
  now: () => Date.now(),
  sleepUntil: async (epochMs) => {
    const wait = epochMs - Date.now();
    if (wait > 0) await sleep(wait);
  },
};
