/**
 * Where each task of a workflow sits: dagre's layered layout, top to bottom (a task below every
 * task it depends on), as React Flow nodes (positioned by their top-left corner) and edges (one
 * per dependency, parent → child).
 */
import { Graph, layout } from '@dagrejs/dagre';
import type { Edge, Node } from '@xyflow/react';
import type { TaskStatus, TriggerRule } from '../../api/workflow-types.ts';

export const NODE_WIDTH = 190;
export const NODE_HEIGHT = 72;

export interface GraphTask {
  key: string;
  dependsOn: readonly string[];
  when: TriggerRule;
  /** The task's state in the workflow run shown; absent when no run is shown. */
  status?: TaskStatus;
}

export type TaskNodeData = { key: string; when: TriggerRule; status?: TaskStatus };
export type TaskNode = Node<TaskNodeData, 'task'>;

/** One node per task, one edge per dependency naming a task of the graph. */
export function layoutGraph(tasks: readonly GraphTask[]): { nodes: TaskNode[]; edges: Edge[] } {
  const graph = new Graph();
  graph.setGraph({ rankdir: 'TB', nodesep: 36, ranksep: 56, marginx: 8, marginy: 8 });
  graph.setDefaultEdgeLabel(() => ({}));
  const keys = new Set(tasks.map((task) => task.key));
  for (const task of tasks) graph.setNode(task.key, { width: NODE_WIDTH, height: NODE_HEIGHT });
  const edges: Edge[] = [];
  for (const task of tasks) {
    for (const parent of task.dependsOn) {
      if (!keys.has(parent)) continue;
      graph.setEdge(parent, task.key);
      edges.push({
        id: `${parent}->${task.key}`,
        source: parent,
        target: task.key,
        ariaLabel: `${task.key} depends on ${parent}`,
      });
    }
  }
  layout(graph);
  const nodes: TaskNode[] = tasks.map((task) => {
    const { x, y } = graph.node(task.key) as { x: number; y: number };
    return {
      id: task.key,
      type: 'task',
      // dagre answers centres; React Flow places by the top-left corner.
      position: { x: x - NODE_WIDTH / 2, y: y - NODE_HEIGHT / 2 },
      data: { key: task.key, when: task.when, ...(task.status ? { status: task.status } : {}) },
      ariaLabel: `Task ${task.key}${task.status ? `, ${task.status}` : ''}${
        task.when === 'all_succeeded' ? '' : `, runs when ${task.when}`
      }`,
      draggable: false,
      connectable: false,
      selectable: false,
    };
  });
  return { nodes, edges };
}
