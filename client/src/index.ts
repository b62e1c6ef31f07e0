// The client package's public surface (filled in by the clients issue, #18).
export * from './webhooks.ts';
