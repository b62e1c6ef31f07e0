/** `npm run admin -- <command>`: see bin/admin-commands.ts. */
import { NotFoundError } from '#core/errors';
import { runAdmin, USAGE, UsageError } from './admin-commands.ts';

try {
  process.exitCode = await runAdmin(process.argv.slice(2), {
    env: process.env,
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  });
} catch (error) {
  if (error instanceof UsageError) {
    console.error(`${error.message}\n${USAGE}`);
    process.exitCode = 2;
  } else if (error instanceof NotFoundError) {
    console.error(error.message);
    process.exitCode = 1;
  } else {
    console.error(error);
    process.exitCode = 1;
  }
}
