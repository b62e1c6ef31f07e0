/**
 * The tenant's workflows, a page at a time: the page's cursor lives in the URL (a reload or a
 * shared link shows the same page), the cursors of the pages before in the history entry's state,
 * so Previous and the browser's Back both walk back — as the jobs list does.
 */
import { useMemo } from 'react';
import { useLocation, useNavigate, useSearchParams } from 'react-router';
import type { WorkflowListQuery } from '../api/workflow-types.ts';
import { useWorkflowList } from '../api/workflows.ts';
import { Empty, ErrorState, Loading } from '../components/QueryState.tsx';
import { WorkflowsTable } from '../components/workflows/WorkflowsTable.tsx';

export const WORKFLOWS_PAGE_SIZE = 20;

/** The cursors of the pages before this one ('' = the first page), kept in the history entry. */
function trailOf(state: unknown): string[] {
  const trail = (state as { trail?: unknown } | null)?.trail;
  return Array.isArray(trail) ? trail.filter((cursor): cursor is string => typeof cursor === 'string') : [];
}

/** The name of a workflow just deleted on its page, said once here. */
function deletedOf(state: unknown): string | undefined {
  const deleted = (state as { deleted?: unknown } | null)?.deleted;
  return typeof deleted === 'string' ? deleted : undefined;
}

const BUTTON = 'rounded border border-slate-300 bg-white px-3 py-1 text-sm hover:bg-slate-100 disabled:opacity-50';

export function WorkflowsPage() {
  const [params] = useSearchParams();
  const location = useLocation();
  const navigate = useNavigate();
  const cursor = params.get('cursor') ?? '';
  const trail = trailOf(location.state);
  const deleted = deletedOf(location.state);
  const query = useMemo<WorkflowListQuery>(
    () => ({ limit: WORKFLOWS_PAGE_SIZE, ...(cursor ? { cursor } : {}) }),
    [cursor],
  );
  const list = useWorkflowList(query);

  function go(next: string | undefined, nextTrail: string[]) {
    navigate({ search: next ? new URLSearchParams({ cursor: next }).toString() : '' }, { state: { trail: nextTrail } });
  }

  const workflows = list.data?.items ?? [];
  const nextCursor = list.data?.cursor ?? null;
  return (
    <div>
      <h1 className="mb-4 text-xl font-semibold">Workflows</h1>
      {deleted && (
        <p role="status" className="mb-3 text-sm text-emerald-800">
          Deleted {deleted}.
        </p>
      )}
      {list.isError && <ErrorState what="the workflows" error={list.error} retry={() => void list.refetch()} />}
      {list.isPending && <Loading what="the workflows" />}
      {list.isSuccess && workflows.length === 0 && (
        <Empty>
          {nextCursor
            ? 'No workflows on this page; there are more to look through.'
            : 'No workflows yet. Create one with POST /v1/workflows (see the API docs).'}
        </Empty>
      )}
      {workflows.length > 0 && (
        <div aria-busy={list.isPlaceholderData} className={list.isPlaceholderData ? 'opacity-60' : undefined}>
          <WorkflowsTable workflows={workflows} />
        </div>
      )}
      <nav aria-label="Pages" className="mt-3 flex items-center gap-2">
        <button
          type="button"
          disabled={!cursor}
          onClick={() => go(trail.at(-1), trail.slice(0, -1))}
          className={BUTTON}
        >
          {cursor && trail.length === 0 ? 'First page' : 'Previous'}
        </button>
        <button
          type="button"
          disabled={!nextCursor || list.isPlaceholderData}
          onClick={() => go(nextCursor ?? undefined, [...trail, cursor])}
          className={BUTTON}
        >
          Next
        </button>
        {list.isFetching && !list.isPending && (
          <span role="status" className="text-sm text-slate-600">
            Refreshing…
          </span>
        )}
      </nav>
    </div>
  );
}
