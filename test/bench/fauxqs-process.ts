/**
 * fauxqs in its own process, counting the requests it serves by action (the x-amz-target of the
 * SQS JSON protocol). That sees every client, including the local event-source pollers, whose
 * ReceiveMessage/DeleteMessageBatch calls Lambda makes (and AWS bills) on the deployed system.
 */
import http from 'node:http';
import { serveParent } from './child-process.ts';

const requests: Record<string, number> = {};
// fauxqs exposes no hook on its server: wrap the request listener it registers (fastify calls
// http.createServer on this shared module object) to count before fauxqs sees the request.
const createServer = http.createServer;
http.createServer = ((...args: unknown[]) => {
  const index = args.findIndex((arg) => typeof arg === 'function');
  if (index < 0) return (createServer as (...a: unknown[]) => http.Server)(...args);
  const listener = args[index] as http.RequestListener;
  args[index] = ((req, res) => {
    const action = String(req.headers['x-amz-target'] ?? 'unknown').replace(/^AmazonSQS\./, '');
    requests[action] = (requests[action] ?? 0) + 1;
    return listener(req, res);
  }) satisfies http.RequestListener;
  return (createServer as (...a: unknown[]) => http.Server)(...args);
}) as typeof http.createServer;

const { startFauxqs } = await import('fauxqs');
const server = await startFauxqs({ port: 0, logger: false });
serveParent({ endpoint: server.address }, (what) => {
  if (what === 'requests') return { ...requests };
  throw new Error(`unknown request ${what}`);
});
