/**
 * fauxqs in its own process for the chaos run, so the SQS emulator answers the executor
 * processes at its own pace whatever the coordinator is busy with. Announces its endpoint over
 * IPC and exits when the coordinator goes away.
 *
 * `tsx fauxqs-process.ts <port> <dataDir>`: its state (queues, their attributes, and every ready,
 * delayed and in-flight message) is written through to SQLite in `dataDir`, so the SQS outage of
 * the chaos run (the coordinator stops this process and starts another on the same port, same
 * directory) loses no message: like SQS itself, which may be unreachable but does not forget.
 * SIGTERM stops it gracefully: requests in flight are answered (or refused with a 503) before it
 * exits, so a send either reached the queue or failed, never both.
 */
import { startFauxqs } from 'fauxqs';

const [port = '0', dataDir] = process.argv.slice(2);
const server = await startFauxqs({ port: Number(port), logger: false, ...(dataDir ? { dataDir } : {}) });
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => {
  void server.stop().finally(() => process.exit(0));
});
process.send?.({ type: 'ready', endpoint: server.address, port: server.port });
