/**
 * How `npm start` behaves as a process, as a dev server should: a port it cannot take is one
 * line saying what to do (before the emulators spend seconds starting), and it stops when the
 * process that started it is gone, so nothing stays behind holding the port.
 */
import { createServer } from 'node:net';

/** Listens on `host:port` and closes at once; rejects with the error the API's own listen would meet. */
export async function checkCanListen(host: string, port: number): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(port, host, () => server.close(() => resolve()));
  });
}

/** The one line a listen error deserves, naming what to change; undefined for other errors. */
export function listenErrorLine(error: unknown, host: string, port: number): string | undefined {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const otherPort = port === 65535 ? 3001 : port + 1;
  switch (code) {
    case 'EADDRINUSE':
      return `Port ${port} is already in use on ${host}. Stop what is using it, or pick another port: PORT=${otherPort} npm start`;
    case 'EACCES':
      return `Port ${port} on ${host} needs privileges this user does not have. Pick a port above 1023: PORT=3000 npm start`;
    case 'EADDRNOTAVAIL':
      return `HOST=${host} is not an address of this machine, so the API cannot listen on it. Pick one of its own: HOST=127.0.0.1 npm start`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST=${host} does not resolve to an address of this machine. Pick one of its own: HOST=127.0.0.1 npm start`;
    default:
      return undefined;
  }
}

const PARENT_CHECK_MS = 500;

/**
 * Calls `onGone` once the process that started this one has ended (this one is then adopted by
 * another: its parent pid changes). That covers a parent killed without a chance to signal us
 * (SIGKILL, a crash), and a shell between npm and us that dies on SIGTERM without passing it on.
 */
export function onParentExit(onGone: () => void): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
}
