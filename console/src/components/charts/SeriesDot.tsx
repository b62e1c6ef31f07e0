/**
 * A chart point that tests and people can count: one <circle data-series> per value drawn, nothing
 * for a missing value (a run with no start lag yet draws no point).
 */
import type { DotItemDotProps } from 'recharts';

function drawDot(series: string, colour: string, { cx, cy, index, value }: DotItemDotProps) {
  if (value === null || value === undefined || cx === undefined || cy === undefined) return <g key={index} />;
  return <circle key={index} data-series={series} cx={cx} cy={cy} r={3} fill={colour} stroke={colour} />;
}

/** Recharts' `dot` for a series: its points carry `data-series={series}`. */
export function seriesDot(series: string, colour: string) {
  return (props: DotItemDotProps) => drawDot(series, colour, props);
}

/** Legend labels in the page's text colour: a light series colour is not readable as text. */
export function legendText(value: string) {
  return <span style={{ color: '#334155' }}>{value}</span>;
}
