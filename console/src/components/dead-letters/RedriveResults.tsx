/** What each re-drive came to: the new attempt, or the API's refusal (429: when to try again). */
import { Link } from 'react-router';
import type { RedriveOutcome } from '../../api/runs.ts';

function refusalText(outcome: Extract<RedriveOutcome, { refused: unknown }>): string {
  const { status, code, message, retryAfterSeconds } = outcome.refused;
  if (status === 0) return `not sent: the API could not be reached (${message})`;
  const wait = retryAfterSeconds === undefined ? '' : `; try again in ${retryAfterSeconds} s`;
  return `refused (${status} ${code}): ${message}${wait}`;
}

export function RedriveResults({ outcomes }: { outcomes: readonly RedriveOutcome[] }) {
  const done = outcomes.filter((outcome) => 'run' in outcome).length;
  return (
    <section aria-labelledby="redrive-heading" className="mt-4 rounded border border-slate-200 bg-white p-3">
      <h2 id="redrive-heading" className="text-sm font-semibold">
        Re-drive: {done} of {outcomes.length} re-driven
      </h2>
      <ul className="mt-2 space-y-1 text-sm">
        {outcomes.map((outcome) => (
          <li key={outcome.runId} data-outcome={'run' in outcome ? 'redriven' : 'refused'}>
            <span className="font-mono text-xs">{outcome.runId}</span>{' '}
            {'run' in outcome ? (
              <span className="text-emerald-800">
                re-driven as attempt {outcome.run.attempt} ({outcome.run.status}) —{' '}
                <Link to={`/jobs/${encodeURIComponent(outcome.run.jobId)}`} className="text-indigo-700 underline">
                  see its job's runs
                </Link>
              </span>
            ) : (
              <span className="text-red-800">{refusalText(outcome)}</span>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
