/** Monitoring: the scope's stats and time series, and for the operator the system view. */

import type { StatsQuery, TimeseriesQuery } from '@chronos/client';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSession } from '../session.tsx';
import { keys } from './keys.ts';
import { data } from './result.ts';

/** Refreshed every 15 s while the page is open: a health page shows the present. */
const REFRESH_MS = 15_000;

export function useStats(query: StatsQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.stats(query),
    queryFn: () => data(client.monitoring.stats(query)),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

/** The window as chart points (GET /v1/monitoring/timeseries: 1h in minutes, 24h in 15-minute steps counted from the window's start). */
export function useTimeseries(query: TimeseriesQuery) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.timeseries(query),
    queryFn: () => data(client.monitoring.timeseries(query)),
    refetchInterval: REFRESH_MS,
    placeholderData: keepPreviousData,
  });
}

export function useSystem(enabled: boolean) {
  const { client } = useSession();
  return useQuery({
    queryKey: keys.system,
    queryFn: () => data(client.monitoring.system()),
    refetchInterval: REFRESH_MS,
    enabled,
  });
}
