/**
 * How many calls were open at the target at one instant, from when each started and was answered:
 * the figure the flow-control, lane and fairness tests bound. A call not answered yet is still open,
 * and one answered in the millisecond another starts does not overlap it (ends sort before starts).
 */
export interface CallSpan {
  at: number;
  answeredAt?: number;
}

export function mostOpenAtOnce(calls: readonly CallSpan[]): number {
  const edges = calls.flatMap((call) => [
    { at: call.at, step: 1 },
    { at: call.answeredAt ?? Number.POSITIVE_INFINITY, step: -1 },
  ]);
  edges.sort((x, y) => x.at - y.at || x.step - y.step);
  let open = 0;
  let most = 0;
  for (const edge of edges) {
    open += edge.step;
    most = Math.max(most, open);
  }
  return most;
}
