/** Exit codes: 0 done, 1 an error (the API's included), 2 a usage error (the command line itself). */
export const EXIT_OK = 0;
export const EXIT_ERROR = 1;
export const EXIT_USAGE = 2;

/** A failure the CLI reports as one message (and, for API errors, the fields the API named). */
export class CliError extends Error {
  override readonly name = 'CliError';
  constructor(
    message: string,
    readonly exitCode: number = EXIT_ERROR,
    /** The API's error, when the API refused: printed as is with --json. */
    readonly apiError?: { status: number; code: string; message: string; details: { field: string; reason: string }[] },
  ) {
    super(message);
  }
}

/** A command line that cannot be run as written (exit 2). */
export class UsageError extends CliError {
  constructor(message: string) {
    super(message, EXIT_USAGE);
  }
}
