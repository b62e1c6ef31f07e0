/**
 * Pause, resume or cancel the selected jobs: a dialog states how many before anything is sent, then
 * one call per job; the report says how many succeeded and, for each that did not, the API's reason
 * (a job that is not paused cannot be resumed).
 */
import type { Job } from '@chronos/client';
import { useEffect, useRef, useState } from 'react';
import { type JobAction, useJobAction } from '../../api/jobs.ts';
import { errorMessage } from '../../api/result.ts';
import { ConfirmDialog } from '../ConfirmDialog.tsx';
import { jobLabel } from './JobsTable.tsx';

type BulkAction = Exclude<JobAction, 'trigger'>;

const WORDS: Record<BulkAction, { verb: string; past: string; effect: string }> = {
  pause: { verb: 'Pause', past: 'Paused', effect: 'They stop calling their targets until resumed.' },
  resume: {
    verb: 'Resume',
    past: 'Resumed',
    effect: 'Each runs again from its next occurrence; missed ones follow its misfire policy.',
  },
  cancel: {
    verb: 'Cancel',
    past: 'Cancelled',
    effect: 'They never fire again and cannot be resumed; their history is kept.',
  },
};

const plural = (count: number) => `${count} ${count === 1 ? 'job' : 'jobs'}`;

interface Report {
  action: BulkAction;
  total: number;
  failed: { job: Job; reason: string }[];
}

interface BulkActionsProps {
  jobs: Job[];
  /** Called once every call has answered (the selection is cleared). */
  onDone: () => void;
}

export function BulkActions({ jobs, onDone }: BulkActionsProps) {
  const jobAction = useJobAction();
  const [asking, setAsking] = useState<BulkAction>();
  const [report, setReport] = useState<Report>();
  // The buttons that opened the dialog are disabled once the selection is cleared, so focus cannot
  // go back to them: it goes to the report, where a keyboard user continues from.
  const reportRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (report) reportRef.current?.focus();
  }, [report]);

  async function run(action: BulkAction) {
    const answers = await Promise.allSettled(jobs.map((job) => jobAction.mutateAsync({ id: job.jobId, action })));
    const failed = answers.flatMap((answer, index) =>
      answer.status === 'rejected' ? [{ job: jobs[index] as Job, reason: errorMessage(answer.reason) }] : [],
    );
    setReport({ action, total: jobs.length, failed });
    setAsking(undefined);
    onDone();
  }

  const count = jobs.length;
  const words = asking && WORDS[asking];
  return (
    <div className="mb-3">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-sm text-slate-700">
          {count === 0 ? 'Select jobs to act on several' : `${plural(count)} selected`}
        </span>
        {(Object.keys(WORDS) as BulkAction[]).map((action) => (
          <button
            key={action}
            type="button"
            disabled={count === 0}
            onClick={() => {
              setReport(undefined);
              setAsking(action);
            }}
            className="rounded border border-slate-300 bg-white px-2 py-1 text-sm hover:bg-slate-100 disabled:opacity-50"
          >
            {WORDS[action].verb} selected
          </button>
        ))}
      </div>
      {words && asking && (
        <ConfirmDialog
          open
          title={`${words.verb} ${plural(count)}?`}
          confirmLabel={`${words.verb} ${plural(count)}`}
          onOpenChange={(open) => !open && setAsking(undefined)}
          onConfirm={() => run(asking)}
          description={
            <>
              <p>{words.effect}</p>
              <ul className="mt-2 max-h-40 list-disc overflow-y-auto pl-5">
                {jobs.map((job) => (
                  <li key={job.jobId}>{jobLabel(job)}</li>
                ))}
              </ul>
            </>
          }
        />
      )}
      <div role="status" ref={reportRef} tabIndex={-1} className="mt-2 text-sm">
        {report && <BulkReport report={report} />}
      </div>
    </div>
  );
}

function BulkReport({ report }: { report: Report }) {
  const succeeded = report.total - report.failed.length;
  const tone = report.failed.length === 0 ? 'border-emerald-300 bg-emerald-50' : 'border-amber-400 bg-amber-50';
  return (
    <div className={`rounded border p-2 ${tone}`}>
      <p>
        {WORDS[report.action].past} {succeeded} of {plural(report.total)}.
        {report.failed.length > 0 &&
          ` ${report.failed.length} could not be ${WORDS[report.action].past.toLowerCase()}:`}
      </p>
      {report.failed.length > 0 && (
        <ul className="mt-1 list-disc pl-5">
          {report.failed.map(({ job, reason }) => (
            <li key={job.jobId}>
              <span className="font-medium">{jobLabel(job)}</span>: {reason}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
