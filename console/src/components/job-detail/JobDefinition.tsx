/**
 * What a job is: its target (secret header values only ever as `***`, as the API gives them), its
 * schedule with the schedule's own zone, and its policies.
 */
import type { Job } from '@chronos/client';
import type { ReactNode } from 'react';
import { flowControlText, PriorityBadge } from '../Lanes.tsx';
import { ScheduleText } from '../ScheduleText.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[10rem_1fr] gap-2 border-b border-slate-100 py-1.5 text-sm last:border-0">
      <dt className="font-medium text-slate-600">{term}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

function HeaderList({ headers, secret }: { headers: Record<string, string>; secret: Record<string, string> }) {
  const entries = [
    ...Object.entries(headers).map(([name, value]) => ({ name, value, secret: false })),
    ...Object.entries(secret).map(([name, value]) => ({ name, value, secret: true })),
  ];
  if (entries.length === 0) return <span className="text-slate-500">none</span>;
  return (
    <ul className="font-mono text-xs">
      {entries.map((header) => (
        <li key={`${header.secret}:${header.name}`}>
          {header.name}: {header.value}
          {header.secret && <span className="ml-2 font-sans text-slate-500">(secret)</span>}
        </li>
      ))}
    </ul>
  );
}

/** A retry policy in words: attempts, backoff, extra statuses. */
export function retryText(retry: Job['retry']): string {
  const parts = [
    `${retry.maxAttempts} attempt${retry.maxAttempts === 1 ? '' : 's'}`,
    `backoff ${retry.initialDelaySeconds} s × ${retry.multiplier} up to ${retry.maxDelaySeconds} s`,
  ];
  if (retry.retryOn?.length) parts.push(`also on ${retry.retryOn.join(', ')}`);
  return parts.join(', ');
}

export function JobDefinition({ job }: { job: Job }) {
  const { schedule } = job;
  return (
    <dl>
      <Row term="Status">
        <StatusBadge status={job.status} />
        {job.pausedAt && (
          <span className="ml-2 text-slate-600">
            since <Time iso={job.pausedAt} />
          </span>
        )}
        {job.quarantine && (
          <p role="note" className="mt-1 text-amber-900">
            Set aside by the scanner (<Time iso={job.quarantine.at} />
            ): {job.quarantine.reason}
          </p>
        )}
      </Row>
      <Row term="Version">{job.version}</Row>
      <Row term="Target">
        <span className="font-mono text-xs">
          {job.target.method} {job.target.url}
        </span>
      </Row>
      <Row term="Headers">
        <HeaderList headers={job.target.headers} secret={job.target.secretHeaders ?? {}} />
      </Row>
      {job.target.body !== undefined && (
        <Row term="Body">
          <pre className="max-h-32 overflow-auto rounded bg-slate-50 p-2 text-xs whitespace-pre-wrap">
            {job.target.body}
          </pre>
        </Row>
      )}
      <Row term="Schedule">
        <ScheduleText schedule={schedule} />
        {schedule.startAt && (
          <span className="block text-xs text-slate-600">
            from <Time iso={schedule.startAt} />
          </span>
        )}
      </Row>
      <Row term="Schedule zone">{schedule.timezone ?? 'UTC'}</Row>
      <Row term="Next fire">
        <Time iso={job.nextFireAt} fallback="none" />
      </Row>
      <Row term="Retry">{retryText(job.retry)}</Row>
      <Row term="Timeout">{job.timeoutSeconds} s</Row>
      <Row term="Delivery">{job.delivery}</Row>
      <Row term="Misfire">{job.misfire}</Row>
      <Row term="Overlap">{job.overlap}</Row>
      <Row term="On failure">
        {job.onFailure === null ? 'none' : <span className="font-mono text-xs">{job.onFailure.url}</span>}
      </Row>
      <Row term="SLA (start lag)">{job.slaSeconds} s</Row>
      <Row term="Priority">
        <PriorityBadge priority={job.priority} />
      </Row>
      <Row term="Flow control">
        {job.flowControl ? (
          <>
            <span data-testid="job-flow-control">{flowControlText(job.flowControl)}</span>{' '}
            <a href="#flow-control-heading" className="text-indigo-700 underline">
              live state
            </a>
          </>
        ) : (
          'none: runs start as soon as they are due'
        )}
      </Row>
      <Row term="Asynchronous">
        {job.async === null ? (
          'no: the HTTP answer ends each run'
        ) : (
          <span data-testid="job-async">
            yes (202 and callbacks): heartbeat timeout {job.async.heartbeatTimeoutSeconds} s, longest run{' '}
            {job.async.maxDurationSeconds} s, cancel grace {job.async.cancelGraceSeconds} s
          </span>
        )}
      </Row>
      <Row term="Created">
        <Time iso={job.createdAt} />
      </Row>
      <Row term="Updated">
        <Time iso={job.updatedAt} />
      </Row>
    </dl>
  );
}
