/** One page of workflows: name, status, schedule in words, version, next fire, task count. */
import { Link } from 'react-router';
import type { WorkflowListItem, WorkflowSummary } from '../../api/workflow-types.ts';
import { ScheduleText } from '../ScheduleText.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';

/** A workflow's name, or its id when it has none. */
export function workflowLabel(workflow: Pick<WorkflowSummary, 'name' | 'workflowId'>): string {
  return workflow.name ?? workflow.workflowId;
}

/** The schedule in words, or that only a trigger starts it. */
export function WorkflowSchedule({ schedule }: { schedule: WorkflowSummary['schedule'] }) {
  return schedule ? <ScheduleText schedule={schedule} /> : <span className="text-slate-600">only when triggered</span>;
}

const HEAD = 'px-3 py-2 text-left text-xs font-semibold uppercase tracking-wide text-slate-600';
const CELL = 'px-3 py-2 align-top';

export function WorkflowsTable({ workflows }: { workflows: readonly WorkflowListItem[] }) {
  return (
    <div className="overflow-x-auto rounded-lg border border-slate-200 bg-white">
      <table className="w-full text-sm">
        <thead className="border-b border-slate-200 bg-slate-50">
          <tr>
            {['Name', 'Status', 'Schedule', 'Version', 'Next fire', 'Tasks'].map((title) => (
              <th key={title} scope="col" className={HEAD}>
                {title}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {workflows.map((workflow) => (
            <tr
              key={workflow.workflowId}
              data-workflow-id={workflow.workflowId}
              className="border-b border-slate-100 last:border-0 hover:bg-slate-50"
            >
              <th scope="row" className={`${CELL} text-left font-medium`}>
                <Link
                  to={`/workflows/${encodeURIComponent(workflow.workflowId)}`}
                  className="text-indigo-700 underline-offset-2 hover:underline"
                >
                  {workflowLabel(workflow)}
                </Link>
              </th>
              <td className={CELL}>
                <StatusBadge status={workflow.status} />
              </td>
              <td className={CELL}>
                <WorkflowSchedule schedule={workflow.schedule} />
              </td>
              <td className={CELL}>{workflow.version}</td>
              <td className={CELL}>
                <Time iso={workflow.nextFireAt} fallback="none" />
              </td>
              <td className={CELL}>{workflow.taskCount}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
