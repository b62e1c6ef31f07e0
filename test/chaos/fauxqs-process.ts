/**
 * fauxqs in its own process for the chaos run, so the SQS emulator answers the executor
 * processes at its own pace whatever the coordinator is busy with. Announces its endpoint over
 * IPC and exits when the coordinator goes away.
 */
import { startFauxqs } from 'fauxqs';

const server = await startFauxqs({ port: 0, logger: false });
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready', endpoint: server.address });
