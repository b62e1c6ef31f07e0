// The client package's public surface: the typed API client (OpenAPI document → schema.ts) and its errors.
export * from './client.ts';
export { type ApiError, ChronosError, type ChronosResult, type ErrorDetail, unwrap } from './errors.ts';
export {
  FLOW_CONTROL_BOUNDS,
  type FlowControlSettings,
  type FlowControlState,
  type LaneQueues,
  type Lanes,
  PRIORITIES,
  type Priority,
} from './lanes.ts';
export { type Page, pages } from './pages.ts';
export { type RetryPolicy, retryDelayMs, retryingFetch } from './retry.ts';
export type { components, operations, paths } from './schema.ts';
export * from './webhooks.ts';
