/** Vitest global setup: the console's build, made once before the browser tests serve it. */
import { ensureConsoleBuilt } from '#local/console-build';

export default function buildConsole(): void {
  ensureConsoleBuilt((line) => console.log(line));
}
