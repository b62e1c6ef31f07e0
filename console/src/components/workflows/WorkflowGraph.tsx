/**
 * A workflow as a graph (React Flow, laid out by dagre top to bottom): one node per task with its
 * key, its rule when it is not the default, and — when a run is shown — its status as a coloured
 * badge that says the status in words. Loaded lazily: React Flow stays out of the first load.
 */
import { Background, Handle, type NodeProps, Position, ReactFlow } from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useMemo } from 'react';
import { StatusBadge } from '../StatusBadge.tsx';
import { type GraphTask, layoutGraph, NODE_HEIGHT, NODE_WIDTH, type TaskNode } from './graph-layout.ts';

const RULE_TEXT: Record<string, string> = { all_done: 'when all done', any_failed: 'when any failed' };

/** The node's border follows its status; the badge inside says it in words. */
const BORDER: Record<string, string> = {
  SUCCEEDED: 'border-emerald-600',
  RUNNING: 'border-sky-600',
  QUEUED: 'border-slate-500',
  FAILED: 'border-red-600',
  TIMED_OUT: 'border-red-600',
  DEAD_LETTERED: 'border-red-700',
  SKIPPED: 'border-slate-400 border-dashed',
  CANCELLED: 'border-slate-400 border-dashed',
};

/** Edges need a node's handles to attach to; nothing is connected by hand, so they are not shown. */
const HIDDEN_HANDLE = { opacity: 0 };

function TaskNodeView({ data }: NodeProps<TaskNode>) {
  return (
    <div
      data-task-key={data.key}
      data-status={data.status ?? ''}
      style={{ width: NODE_WIDTH, height: NODE_HEIGHT }}
      className={`flex flex-col justify-center gap-1 rounded-md border-2 bg-white px-3 text-left shadow-sm ${
        data.status ? (BORDER[data.status] ?? 'border-slate-300') : 'border-indigo-300'
      }`}
    >
      <Handle type="target" position={Position.Top} isConnectable={false} style={HIDDEN_HANDLE} />
      <span className="truncate font-mono text-sm font-semibold text-slate-900">{data.key}</span>
      <span className="flex items-center gap-2">
        {data.status && <StatusBadge status={data.status} />}
        {data.when !== 'all_succeeded' && (
          <span className="text-xs text-slate-700" data-testid="task-rule">
            {RULE_TEXT[data.when] ?? data.when}
          </span>
        )}
      </span>
      <Handle type="source" position={Position.Bottom} isConnectable={false} style={HIDDEN_HANDLE} />
    </div>
  );
}

const NODE_TYPES = { task: TaskNodeView };

export default function WorkflowGraph({ tasks, label }: { tasks: readonly GraphTask[]; label: string }) {
  const { nodes, edges } = useMemo(() => layoutGraph(tasks), [tasks]);
  const depth = Math.max(...nodes.map((node) => node.position.y + NODE_HEIGHT), NODE_HEIGHT);
  return (
    <div
      data-testid="workflow-graph"
      data-nodes={nodes.length}
      data-edges={edges.length}
      className="rounded border border-slate-200 bg-slate-50"
      style={{ height: Math.min(Math.max(depth + 48, 200), 560) }}
    >
      <ReactFlow
        aria-label={label}
        nodes={nodes}
        edges={edges}
        nodeTypes={NODE_TYPES}
        fitView
        fitViewOptions={{ padding: 0.15, maxZoom: 1 }}
        nodesDraggable={false}
        nodesConnectable={false}
        elementsSelectable={false}
        edgesFocusable={false}
        zoomOnScroll={false}
        preventScrolling={false}
        minZoom={0.3}
      >
        <Background gap={16} color="#e2e8f0" />
      </ReactFlow>
    </div>
  );
}
