/**
 * Duration and start lag of each run shown, oldest on the left: whether calls get slower, or start
 * later than the SLA allows. Loaded lazily (Recharts stays out of the first load).
 */
import type { Run } from '@chronos/client';
import { CartesianGrid, Legend, Line, LineChart, ReferenceLine, Tooltip, XAxis, YAxis } from 'recharts';
import { formatLocal } from '../Time.tsx';
import { legendText, seriesDot } from './SeriesDot.tsx';

const DURATION = '#4338ca';
const START_LAG = '#b45309';

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit', second: '2-digit' });

export default function RunTimingChart({ runs, slaSeconds }: { runs: readonly Run[]; slaSeconds: number }) {
  const points = [...runs]
    .filter((run) => run.durationMs !== null || run.startLagMs !== null)
    .reverse()
    .map((run) => ({
      runId: run.runId,
      label: timeOfDay.format(new Date(run.scheduledFor)),
      when: formatLocal(run.scheduledFor),
      attempt: run.attempt,
      durationMs: run.durationMs,
      startLagMs: run.startLagMs,
    }));
  if (points.length === 0) {
    return <p className="py-4 text-sm text-slate-500">No run on this page has timings yet.</p>;
  }
  return (
    <figure data-testid="run-timing-chart" data-points={points.length}>
      <LineChart
        responsive
        style={{ width: '100%', height: 260 }}
        data={points}
        margin={{ top: 8, right: 16, bottom: 8, left: 8 }}
        role="img"
        aria-label={`Duration and start lag of ${points.length} runs, in milliseconds`}
      >
        <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
        <XAxis dataKey="label" tick={{ fontSize: 11, fill: '#475569' }} />
        <YAxis unit=" ms" tick={{ fontSize: 11, fill: '#475569' }} width={72} />
        <Tooltip labelFormatter={(_, payload) => payload?.[0]?.payload?.when ?? ''} />
        <Legend wrapperStyle={{ fontSize: 12 }} formatter={legendText} />
        <ReferenceLine
          y={slaSeconds * 1_000}
          stroke="#dc2626"
          strokeDasharray="4 4"
          label={{ value: 'SLA', fill: '#b91c1c', fontSize: 11, position: 'insideTopRight' }}
        />
        <Line
          name="Duration (ms)"
          dataKey="durationMs"
          stroke={DURATION}
          isAnimationActive={false}
          dot={seriesDot('duration', DURATION)}
        />
        <Line
          name="Start lag (ms)"
          dataKey="startLagMs"
          stroke={START_LAG}
          isAnimationActive={false}
          dot={seriesDot('start-lag', START_LAG)}
        />
      </LineChart>
      <figcaption className="mt-1 text-xs text-slate-600">
        Each point is one run on this page (oldest left); the dashed line is the job's SLA for start lag ({slaSeconds}{' '}
        s).
      </figcaption>
    </figure>
  );
}
