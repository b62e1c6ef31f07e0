/**
 * The bystander's side of a noisy-neighbour test: one-time jobs of another tenant, each due at a
 * whole second `offsetsMs` from now, and the start lag each one got at the target. The caller
 * asserts the lags against the SLA; a call that never came within 20 s counts as an infinite lag.
 */
import { expect } from 'vitest';
import type { HttpTarget } from '../../support/http-target.ts';
import type { Api } from './tenant-api.ts';

export async function bystanderLags(api: Api, target: HttpTarget, offsetsMs: readonly number[]): Promise<number[]> {
  const dueTimes = offsetsMs.map((offset) => Math.ceil((Date.now() + offset) / 1000) * 1000);
  for (const [i, at] of dueTimes.entries()) {
    const created = await api('POST', '/v1/jobs', {
      target: { url: target.url(`/bystander-${i}`) },
      schedule: { type: 'once', at: new Date(at).toISOString() },
    });
    expect(created.status).toBe(201);
  }
  const lags: number[] = [];
  for (const [i, at] of dueTimes.entries()) {
    const [call] = await target.waitForCalls(`/bystander-${i}`, 1, at - Date.now() + 20_000);
    lags.push((call?.at ?? Number.POSITIVE_INFINITY) - at);
  }
  return lags;
}
