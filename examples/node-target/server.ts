/**
 * A minimal Chronos target in plain node:http: it reads each call's raw body, verifies its
 * Standard Webhooks signature with the client package's helper, and answers 200 (verified) or
 * 401 (anything else, with the reason). A call of an async job (it carries Chronos-Callback-Url)
 * is taken with 202 and worked on in the background: a heartbeat with progress and a checkpoint
 * every step, resuming from an earlier attempt's checkpoint, then a completion with its output.
 * Run it with one command (README.md beside this file):
 *   CHRONOS_SIGNING_SECRET=whsec_… npx tsx examples/node-target/server.ts
 * Several secrets (a rotation) are comma-separated; PORT picks the port (default 8080, 0 = any).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { verifyWebhook } from '../../client/src/webhooks.ts';

/** The largest body this target reads; Chronos sends at most the job's payload (256 KB). */
const MAX_BODY_BYTES = 512 * 1024;

export interface TargetOptions {
  /** The tenant's `whsec_…` signing secrets: the current one, and the next during a rotation. */
  secrets: readonly string[];
  port?: number;
  host?: string;
  /** Where each verified call is reported (default: one JSON line on stdout). */
  log?: (line: string) => void;
  /** An async call's work: how many steps, and how long each takes (default 5 steps of 1 s). */
  asyncWork?: { steps: number; stepMs: number };
}

/** Starts the target; resolves with the server and the URL it listens on. */
export async function startTarget(options: TargetOptions): Promise<{ server: Server; url: string }> {
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  const server = createServer(async (req, res) => {
    const body = await rawBody(req).catch(() => undefined);
    if (body === undefined) {
      res.writeHead(413).end('body too large\n');
      return;
    }
    const verified = verifyWebhook(body, req.headers, { secrets: options.secrets });
    if (!verified.ok) {
      log(JSON.stringify({ verified: false, reason: verified.reason, path: req.url }));
      res.writeHead(401, { 'content-type': 'text/plain' }).end(`${verified.reason}: ${verified.message}\n`);
      return;
    }
    // The job's work goes here. webhook-id is the occurrence's idempotency key: the same across
    // retries, so a target that must act once can remember the ids it has done.
    log(JSON.stringify({ verified: true, id: verified.id, path: req.url, bytes: body.length }));
    const callbackUrl = req.headers['chronos-callback-url'];
    if (typeof callbackUrl === 'string') {
      // An async job: take the work now (202), report on it through the callback URL.
      res.writeHead(202, { 'content-type': 'application/json' }).end(JSON.stringify({ accepted: verified.id }));
      const work = options.asyncWork ?? { steps: 5, stepMs: 1000 };
      void workAsync(callbackUrl, req.headers['chronos-checkpoint'] === 'present', work, log);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ received: verified.id }));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 8080, options.host ?? '127.0.0.1', resolve));
  const { address, port } = server.address() as AddressInfo;
  return { server, url: `http://${address}:${port}` };
}

/** What the callback routes answer, as far as this worker reads it. */
interface CallbackAnswer {
  cancelRequested?: boolean;
  checkpoint?: { step?: unknown } | null;
}

/**
 * The background work of an async call: resumes from the checkpoint an earlier attempt left (the
 * callback GET), heartbeats progress and a checkpoint after each step, stops when a cancel is
 * requested (completing `failed`), and completes `succeeded` with its output.
 */
async function workAsync(
  callbackUrl: string,
  resume: boolean,
  work: { steps: number; stepMs: number },
  log: (line: string) => void,
): Promise<void> {
  const post = (path: string, body: unknown) =>
    fetch(`${callbackUrl}/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (response) => ({ status: response.status, body: (await response.json()) as CallbackAnswer }));
  try {
    let step = 0;
    if (resume) {
      const state = (await (await fetch(callbackUrl)).json()) as CallbackAnswer;
      step = typeof state.checkpoint?.step === 'number' ? state.checkpoint.step : 0;
    }
    while (step < work.steps) {
      await new Promise((resolve) => setTimeout(resolve, work.stepMs));
      step++;
      const beat = await post('heartbeat', {
        progress: Math.round((step / work.steps) * 100),
        message: `step ${step} of ${work.steps}`,
        checkpoint: { step },
      });
      log(JSON.stringify({ async: 'heartbeat', step, status: beat.status }));
      if (beat.status !== 200) return; // the attempt ended (timed out, superseded): stop working
      if (beat.body.cancelRequested) {
        await post('complete', { status: 'failed', error: 'cancelled' });
        log(JSON.stringify({ async: 'cancelled', step }));
        return;
      }
    }
    const done = await post('complete', { status: 'succeeded', output: { steps: work.steps } });
    log(JSON.stringify({ async: 'completed', status: done.status }));
  } catch (error) {
    // A worker that dies says nothing more: Chronos ends the attempt at its heartbeat deadline and retries it.
    log(JSON.stringify({ async: 'failed', error: String(error) }));
  }
}

/** The body exactly as sent: the signature is over these bytes, not over a re-serialized object. */
async function rawBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secrets = (process.env.CHRONOS_SIGNING_SECRET ?? '').split(',').filter((s) => s.trim() !== '');
  if (secrets.length === 0) {
    process.stderr.write('Set CHRONOS_SIGNING_SECRET to your whsec_… secret (npm start prints the local one).\n');
    process.exit(2);
  }
  const steps = Number(process.env.ASYNC_STEPS ?? 5);
  const stepMs = Number(process.env.ASYNC_STEP_MS ?? 1000);
  const { server, url } = await startTarget({
    secrets,
    port: Number(process.env.PORT ?? 8080),
    asyncWork: { steps, stepMs },
  });
  process.stdout.write(`listening on ${url}\n`);
  const stop = () => server.close(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
