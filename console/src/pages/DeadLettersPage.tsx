/**
 * Dead letters (/dead-letters): the tenant's runs SQS gave up on, newest first, a page at a time
 * (`cursor`, and `limit` when not 20, in the URL). Select one or several and re-drive them, after a confirmation that says
 * how many; each run's outcome is reported on its own (one refusal does not stop the others).
 */
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useDeadLetters, useJobNames, useRedrive } from '../api/runs.ts';
import { ActionDialog } from '../components/ActionDialog.tsx';
import { CursorPager } from '../components/CursorPager.tsx';
import { DeadLetterTable } from '../components/dead-letters/DeadLetterTable.tsx';
import { RedriveResults } from '../components/dead-letters/RedriveResults.tsx';
import { pageSize } from '../components/format.ts';
import { Empty, ErrorState, Loading } from '../components/QueryState.tsx';

const plural = (count: number) => `${count} run${count === 1 ? '' : 's'}`;

export function DeadLettersPage() {
  const [params, setParams] = useSearchParams();
  const cursor = params.get('cursor') ?? undefined;
  const limit = pageSize(params);
  const list = useDeadLetters({ limit, ...(cursor ? { cursor } : {}) });
  const runs = list.data?.items ?? [];
  const jobNames = useJobNames([...new Set(runs.map((run) => run.jobId))]);
  const redrive = useRedrive();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [confirming, setConfirming] = useState(false);
  const [redriven, setRedriven] = useState<Readonly<Record<string, number>>>({});
  // Only runs on this page count: a selection does not follow to another page.
  const chosen = runs.filter((run) => selected.has(run.runId)).map((run) => run.runId);

  function toggle(runId: string, on: boolean) {
    const next = new Set(selected);
    if (on) next.add(runId);
    else next.delete(runId);
    setSelected(next);
  }
  function goTo(next: string | undefined) {
    setSelected(new Set());
    const updated = new URLSearchParams(params);
    if (next) updated.set('cursor', next);
    else updated.delete('cursor');
    setParams(updated);
  }
  function confirmRedrive() {
    redrive.mutate(chosen, {
      onSuccess: (outcomes) => {
        setSelected(new Set());
        const next = { ...redriven };
        for (const outcome of outcomes) if ('run' in outcome) next[outcome.runId] = outcome.run.attempt;
        setRedriven(next);
      },
    });
  }

  return (
    <>
      <h1 className="text-xl font-semibold">Dead letters</h1>
      <p className="mt-1 max-w-3xl text-sm text-slate-600">
        Runs that could not be delivered after every receive the dispatch queue allows. Re-driving one sends its
        occurrence again as a new attempt, now; the dead-lettered attempt stays here as a record.
      </p>
      <div className="mt-4 flex flex-wrap items-center gap-3">
        <ActionDialog
          open={confirming}
          onOpenChange={setConfirming}
          title={`Re-drive ${plural(chosen.length)}?`}
          description={`${plural(chosen.length)} will each be sent again as a new attempt, now. The target is called again for each.`}
          confirm={`Re-drive ${plural(chosen.length)}`}
          onConfirm={confirmRedrive}
          trigger={
            <button
              type="button"
              disabled={chosen.length === 0 || redrive.isPending}
              className="rounded bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-indigo-700 disabled:opacity-50"
            >
              Re-drive selected ({chosen.length})
            </button>
          }
        />
        <span aria-live="polite" className="text-sm text-slate-600">
          {redrive.isPending ? `Re-driving ${plural(redrive.variables?.length ?? 0)}…` : ''}
        </span>
      </div>
      {redrive.isError && <ErrorState what="the re-drive" error={redrive.error} />}
      {redrive.data && <RedriveResults outcomes={redrive.data} />}

      <div className="mt-4">
        {list.isError && <ErrorState what="the dead letters" error={list.error} retry={() => void list.refetch()} />}
        {list.isPending ? (
          <Loading what="dead letters" />
        ) : runs.length === 0 ? (
          !list.isError && <Empty>No dead letters{cursor ? ' on this page' : ''}: every run ended on its own.</Empty>
        ) : (
          <DeadLetterTable
            runs={runs}
            jobNames={jobNames}
            selected={selected}
            redriven={redriven}
            onToggle={toggle}
            onToggleAll={(on) => setSelected(new Set(on ? runs.map((run) => run.runId) : []))}
          />
        )}
      </div>
      <CursorPager label="Dead-letter pages" cursor={cursor} nextCursor={list.data?.cursor} onGo={goTo} />
    </>
  );
}
