/** Vitest global setup: the console's build and the browser, ready once before the browser tests. */
import { ensureConsoleBuilt } from '#local/console-build';
import { ensureChromium } from '../../console/test/support/chromium.ts';

export default function buildConsole(): void {
  ensureConsoleBuilt((line) => console.log(line));
  ensureChromium((line) => console.log(line));
}
