/** The workflow graph behind Suspense: React Flow and dagre load only when a graph is shown. */
import { lazy, Suspense } from 'react';
import { Loading } from '../QueryState.tsx';
import type { GraphTask } from './graph-layout.ts';

const WorkflowGraph = lazy(() => import('./WorkflowGraph.tsx'));

export function LazyWorkflowGraph({ tasks, label }: { tasks: readonly GraphTask[]; label: string }) {
  return (
    <Suspense fallback={<Loading what="the graph" />}>
      <WorkflowGraph tasks={tasks} label={label} />
    </Suspense>
  );
}
