/**
 * The health page's charts over a window, from the monitoring time series: runs that succeeded vs
 * failed per step, and duration / start-lag p50 and p95 per step. Loaded lazily (Recharts stays
 * out of the first load). Failed counts FAILED, TIMED_OUT and DEAD_LETTERED, as the stats' error
 * rate does.
 */
import type { MonitoringTimeseries } from '@chronos/client';
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, Tooltip, XAxis, YAxis } from 'recharts';
import { formatLocal } from '../Time.tsx';
import { legendText, seriesDot } from './SeriesDot.tsx';

type Point = MonitoringTimeseries['points'][number];

const COLOURS = {
  succeeded: '#047857',
  failed: '#b91c1c',
  durationP50: '#4338ca',
  durationP95: '#818cf8',
  startLagP50: '#b45309',
  startLagP95: '#f59e0b',
};

const timeOfDay = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });

interface BarShapeProps {
  x?: number;
  y?: number;
  width?: number;
  height?: number;
  index?: number;
}

/** A bar segment carrying its series (nothing drawn for an empty step), so tests can count them. */
function barShape(series: 'succeeded' | 'failed', colour: string) {
  return ({ x = 0, y = 0, width = 0, height = 0, index }: BarShapeProps) =>
    height > 0 ? (
      <rect key={index} data-series={series} x={x} y={y} width={width} height={height} fill={colour} />
    ) : (
      <g key={index} />
    );
}

const AXIS_TICK = { fontSize: 11, fill: '#475569' };

export default function HealthCharts({ series }: { series: MonitoringTimeseries }) {
  const points = series.points.map((point: Point) => ({
    label: timeOfDay.format(new Date(point.at)),
    when: formatLocal(point.at),
    succeeded: point.succeeded,
    failed: point.failed + point.timedOut + point.deadLettered,
    durationP50: point.durationMs.p50,
    durationP95: point.durationMs.p95,
    startLagP50: point.startLagMs.p50,
    startLagP95: point.startLagMs.p95,
  }));
  const total = (key: 'succeeded' | 'failed') => points.reduce((sum, point) => sum + point[key], 0);
  const step = series.stepSeconds === 60 ? 'minute' : `${series.stepSeconds / 60} minutes`;
  const tooltipLabel = (_: unknown, payload: ReadonlyArray<{ payload?: { when?: string } }> | undefined) =>
    payload?.[0]?.payload?.when ?? '';

  return (
    <div className="grid gap-4 lg:grid-cols-2">
      <figure
        data-testid="outcome-chart"
        data-steps={points.length}
        data-succeeded={total('succeeded')}
        data-failed={total('failed')}
        className="rounded border border-slate-200 bg-white p-3"
      >
        <figcaption className="mb-2 text-sm font-semibold">Succeeded vs failed, per {step}</figcaption>
        <BarChart
          responsive
          style={{ width: '100%', height: 240 }}
          data={points}
          role="img"
          aria-label={`Runs per ${step}: ${total('succeeded')} succeeded and ${total('failed')} failed over the window`}
        >
          <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
          <XAxis dataKey="label" tick={AXIS_TICK} minTickGap={24} />
          <YAxis allowDecimals={false} tick={AXIS_TICK} width={40} />
          <Tooltip labelFormatter={tooltipLabel} />
          <Legend wrapperStyle={{ fontSize: 12 }} formatter={legendText} />
          <Bar
            name="Succeeded"
            dataKey="succeeded"
            stackId="runs"
            fill={COLOURS.succeeded}
            isAnimationActive={false}
            shape={barShape('succeeded', COLOURS.succeeded)}
          />
          <Bar
            name="Failed"
            dataKey="failed"
            stackId="runs"
            fill={COLOURS.failed}
            isAnimationActive={false}
            shape={barShape('failed', COLOURS.failed)}
          />
        </BarChart>
      </figure>
      <figure data-testid="latency-chart" className="rounded border border-slate-200 bg-white p-3">
        <figcaption className="mb-2 text-sm font-semibold">Duration and start lag, p50 and p95 per {step}</figcaption>
        <LineChart
          responsive
          style={{ width: '100%', height: 240 }}
          data={points}
          role="img"
          aria-label={`Duration and start-lag percentiles per ${step}, in milliseconds (bucket upper bounds)`}
        >
          <CartesianGrid stroke="#e2e8f0" strokeDasharray="3 3" />
          <XAxis dataKey="label" tick={AXIS_TICK} minTickGap={24} />
          <YAxis unit=" ms" tick={AXIS_TICK} width={72} />
          <Tooltip labelFormatter={tooltipLabel} />
          <Legend wrapperStyle={{ fontSize: 12 }} formatter={legendText} />
          {(
            [
              ['durationP50', 'Duration p50', 'duration-p50'],
              ['durationP95', 'Duration p95', 'duration-p95'],
              ['startLagP50', 'Start lag p50', 'start-lag-p50'],
              ['startLagP95', 'Start lag p95', 'start-lag-p95'],
            ] as const
          ).map(([key, name, testSeries]) => (
            <Line
              key={key}
              name={name}
              dataKey={key}
              stroke={COLOURS[key]}
              isAnimationActive={false}
              dot={seriesDot(testSeries, COLOURS[key])}
            />
          ))}
        </LineChart>
      </figure>
    </div>
  );
}
