/**
 * What a workflow is: its schedule (in words, with its zone), its policies and version, and each
 * task's call, rule and input (secret header values only ever as `***`, as the API gives them).
 */
import type { FlowControlSettings, Priority } from '@chronos/client';
import type { ReactNode } from 'react';
import type { Workflow } from '../../api/workflow-types.ts';
import { retryText } from '../job-detail/JobDefinition.tsx';
import { flowControlText, PriorityBadge } from '../Lanes.tsx';
import { StatusBadge } from '../StatusBadge.tsx';
import { Time } from '../Time.tsx';
import { WorkflowSchedule } from './WorkflowsTable.tsx';

function Row({ term, children }: { term: string; children: ReactNode }) {
  return (
    <div className="grid grid-cols-[9rem_1fr] gap-2 border-b border-slate-100 py-1.5 text-sm last:border-0">
      <dt className="font-medium text-slate-600">{term}</dt>
      <dd className="min-w-0 break-words">{children}</dd>
    </div>
  );
}

export function WorkflowDefinition({ workflow }: { workflow: Workflow }) {
  return (
    <dl>
      <Row term="Status">
        <StatusBadge status={workflow.status} />
      </Row>
      <Row term="Version">{workflow.version}</Row>
      <Row term="Schedule">
        <WorkflowSchedule schedule={workflow.schedule} />
      </Row>
      {workflow.schedule && <Row term="Schedule zone">{workflow.schedule.timezone ?? 'UTC'}</Row>}
      <Row term="Next fire">
        <Time iso={workflow.nextFireAt} fallback="none" />
      </Row>
      <Row term="Misfire">{workflow.misfire}</Row>
      <Row term="Overlap">{workflow.overlap}</Row>
      <Row term="On failure">
        {workflow.onFailure === null ? 'none' : <span className="font-mono text-xs">{workflow.onFailure.url}</span>}
      </Row>
      <Row term="Created">
        <Time iso={workflow.createdAt} />
      </Row>
      <Row term="Updated">
        <Time iso={workflow.updatedAt} />
      </Row>
    </dl>
  );
}

/** A task's issue #22 fields, until the regenerated client types have them on workflow tasks. */
type TaskLanes = { priority?: Priority; flowControl?: FlowControlSettings | null };

const HEAD = 'px-2 py-1.5 text-left text-xs font-semibold uppercase tracking-wide text-slate-600';
const CELL = 'px-2 py-1.5 align-top';

/** Each task's call and policies, in definition order. */
export function TaskDefinitions({ workflow }: { workflow: Workflow }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-sm">
        <caption className="sr-only">Tasks of version {workflow.version}</caption>
        <thead className="border-b border-slate-200 bg-slate-50">
          <tr>
            {['Task', 'Depends on', 'Rule', 'Call', 'Retry', 'Timeout', 'Delivery', 'Priority and flow'].map(
              (title) => (
                <th key={title} scope="col" className={HEAD}>
                  {title}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody>
          {workflow.tasks.map((task: (typeof workflow.tasks)[number] & TaskLanes) => (
            <tr key={task.key} data-task-definition={task.key} className="border-b border-slate-100 last:border-0">
              <th scope="row" className={`${CELL} text-left font-mono text-xs font-semibold`}>
                {task.key}
              </th>
              <td className={`${CELL} font-mono text-xs`}>{task.dependsOn.join(', ') || '—'}</td>
              <td className={CELL}>
                {task.when}
                {task.input === 'upstream' && <span className="block text-xs text-slate-600">input: upstream</span>}
              </td>
              <td className={`${CELL} font-mono text-xs break-all`}>
                {task.target.method} {task.target.url}
                {Object.entries(task.target.secretHeaders ?? {}).map(([name, value]) => (
                  <span key={name} className="block text-slate-600">
                    {name}: {value}
                  </span>
                ))}
              </td>
              <td className={`${CELL} text-xs`}>{retryText(task.retry)}</td>
              <td className={CELL}>{task.timeoutSeconds} s</td>
              <td className={`${CELL} text-xs`}>
                {task.delivery}
                {task.async && <span className="block text-slate-600">async</span>}
              </td>
              <td className={`${CELL} text-xs`} data-testid="task-lanes">
                <PriorityBadge priority={task.priority} />
                {task.flowControl && <span className="mt-1 block font-mono">{flowControlText(task.flowControl)}</span>}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
