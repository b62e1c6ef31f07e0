/**
 * A flow-control key as it is now (GET /v1/flow-control/{key}, read again every 5 s): the limits
 * (the ones a job or task naming the key wrote last, maybe another job's), the key's runs in
 * flight and its runs waiting for the limits.
 */
import { useFlowControl } from '../../api/flow-control.ts';
import { ChronosError } from '../../api/result.ts';
import { ErrorState, Loading } from '../QueryState.tsx';
import { Time } from '../Time.tsx';

function Stat({ label, value, testId }: { label: string; value: string | number; testId?: string }) {
  return (
    <div className="flex justify-between gap-4 border-t border-slate-100 py-1 text-sm first:border-0">
      <dt className="text-slate-600">{label}</dt>
      <dd className="tabular-nums" data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

export function FlowControlPanel({ flowKey }: { flowKey: string }) {
  const state = useFlowControl(flowKey);
  if (state.isPending) return <Loading what="the key's state" />;
  if (!state.data) {
    if (state.error instanceof ChronosError && state.error.error.status === 404)
      return <p className="text-sm text-slate-600">No run has used this key yet.</p>;
    return <ErrorState what="the key's state" error={state.error} retry={() => void state.refetch()} />;
  }
  const { ratePerSecond, parallelism, inFlight, waiting, updatedAt } = state.data;
  return (
    <dl data-testid="flow-control-state">
      <Stat
        label="Rate"
        value={ratePerSecond === undefined ? 'no limit' : `${ratePerSecond} calls started per second`}
      />
      <Stat label="Parallelism" value={parallelism === undefined ? 'no limit' : `${parallelism} in flight at most`} />
      <Stat label="Runs in flight" value={inFlight} testId="flow-in-flight" />
      <Stat label="Runs waiting" value={waiting} testId="flow-waiting" />
      <div className="flex justify-between gap-4 border-t border-slate-100 py-1 text-sm">
        <dt className="text-slate-600">Limits written</dt>
        <dd>
          <Time iso={updatedAt} />
        </dd>
      </div>
      {state.isError && <ErrorState what="the key's latest state" error={state.error} />}
    </dl>
  );
}
