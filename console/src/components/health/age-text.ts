/** A queue's oldest-message age in words: CloudWatch's seconds, or why there are none. */
import type { MonitoringSystem } from '@chronos/client';

export type Age = MonitoringSystem['$defs']['oldestMessageAge'];

export function ageText(seconds: number | null, age: Age): string {
  if (seconds !== null) return `${seconds} s`;
  if ('reason' in age && age.reason === 'error') return `unknown (CloudWatch: ${age.error})`;
  return 'no data from CloudWatch';
}
