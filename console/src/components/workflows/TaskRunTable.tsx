/**
 * Each task of a workflow run: its status, its latest attempt and when, the HTTP status and error
 * type of its call, why it was skipped, and the id of its run (a task run is an ordinary run:
 * GET /v1/runs/{runId}; the console has no page for one run).
 */
import type { WorkflowRunTask } from '../../api/workflow-types.ts';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';

const HEAD = 'px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-600';
const CELL = 'px-3 py-2 align-top';
const NONE = <span className="text-slate-500">—</span>;

export function TaskRunTable({ tasks, caption }: { tasks: readonly WorkflowRunTask[]; caption: string }) {
  return (
    <div className="overflow-x-auto rounded border border-slate-200 bg-white">
      <table className="w-full text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="border-b border-slate-200 bg-slate-50">
          <tr>
            {['Task', 'Status', 'Attempt', 'Started', 'Completed', 'HTTP', 'Error type', 'Skipped because', 'Run'].map(
              (title) => (
                <th key={title} scope="col" className={HEAD}>
                  {title}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr key={task.key} data-task-key={task.key} className="border-b border-slate-100 last:border-0">
              <th scope="row" className={`${CELL} text-left font-mono text-xs font-semibold`}>
                {task.key}
              </th>
              <td className={CELL}>
                <StatusBadge status={task.status} />
              </td>
              <td className={CELL}>{task.attempt ?? NONE}</td>
              <td className={CELL}>
                <Time iso={task.startedAt} />
              </td>
              <td className={CELL}>
                <Time iso={task.completedAt} />
              </td>
              <td className={CELL}>{task.httpStatus ?? NONE}</td>
              <td className={`${CELL} text-xs`}>{task.errorType ?? NONE}</td>
              <td className={`${CELL} text-xs`}>{task.skippedReason ?? NONE}</td>
              <td className={`${CELL} font-mono text-xs break-all`}>{task.runId ?? NONE}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
