/**
 * How the command line answers: a person reads lines on stdout and progress on stderr; a program
 * (`--json`) reads one JSON document on stdout, the error included. Every failure is a CliError
 * with the service's error code (or the command line's own) and an exit code from one table.
 */

/** Exit codes (docs/cli.md, "Exit codes"). */
export const EXIT = {
  OK: 0,
  /** An unexpected failure, or `diff --exit-code` found differences. */
  FAILURE: 1,
  /** Wrong command line: unknown command or option, missing or bad argument. */
  USAGE: 2,
  /** Not signed in, or the credential was refused (UNAUTHORIZED, FORBIDDEN). */
  AUTH: 3,
  /** A file or input the validator or the service refuses (VALIDATION_ERROR). */
  INVALID: 4,
  /** Changed on the service since the last pull (CONFLICT). */
  CONFLICT: 5,
  /** The workflow, deployment or file does not exist (NOT_FOUND). */
  NOT_FOUND: 6,
  /** The service cannot be reached, is unavailable or rate-limits (SERVICE_UNAVAILABLE, RATE_LIMITED). */
  UNAVAILABLE: 7,
  /** The plan's limit is reached (PLAN_LIMIT_EXCEEDED). */
  PLAN_LIMIT: 8,
  /** `doctor` found a problem in a client's configuration or connection. */
  DOCTOR: 9,
} as const;

const EXIT_OF_CODE: Record<string, number> = {
  USAGE: EXIT.USAGE,
  UNAUTHORIZED: EXIT.AUTH,
  FORBIDDEN: EXIT.AUTH,
  NOT_SIGNED_IN: EXIT.AUTH,
  SIGN_IN_FAILED: EXIT.AUTH,
  VALIDATION_ERROR: EXIT.INVALID,
  INVALID_FILE: EXIT.INVALID,
  PAYLOAD_TOO_LARGE: EXIT.INVALID,
  CONFLICT: EXIT.CONFLICT,
  PRECONDITION_FAILED: EXIT.CONFLICT,
  NOT_FOUND: EXIT.NOT_FOUND,
  SERVICE_UNREACHABLE: EXIT.UNAVAILABLE,
  SERVICE_UNAVAILABLE: EXIT.UNAVAILABLE,
  RATE_LIMITED: EXIT.UNAVAILABLE,
  PLAN_LIMIT_EXCEEDED: EXIT.PLAN_LIMIT,
  DOCTOR_PROBLEMS: EXIT.DOCTOR,
};

export class CliError extends Error {
  constructor(
    /** The service's error code (VALIDATION_ERROR, CONFLICT, …) or the command line's own (USAGE, NOT_SIGNED_IN, …). */
    readonly code: string,
    message: string,
    /** What to do about it. */
    readonly hint?: string,
    readonly details?: unknown,
  ) {
    super(message);
  }

  get exitCode(): number {
    return EXIT_OF_CODE[this.code] ?? EXIT.FAILURE;
  }
}

export interface Output {
  readonly json: boolean;
  /** A line for a person (stdout); nothing in --json mode. */
  line(text: string): void;
  /** Progress of a long operation (stderr), in both modes. */
  progress(text: string): void;
  /** The command's result: the JSON document in --json mode, else `human()`'s lines. */
  result(data: unknown, human?: () => void): void;
}

export function createOutput(json: boolean): Output {
  return {
    json,
    line(text) {
      if (!json) process.stdout.write(`${text}\n`);
    },
    progress(text) {
      process.stderr.write(`${text}\n`);
    },
    result(data, human) {
      if (json) process.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
      else human?.();
    },
  };
}

/** Writes a failure as the mode asks and returns its exit code. */
export function reportError(error: unknown, json: boolean): number {
  const failure =
    error instanceof CliError
      ? error
      : new CliError(
          'INTERNAL_ERROR',
          error instanceof Error ? error.message : String(error),
          'This is a fault of the command line; run it again with --json and report the output.',
        );
  if (json) {
    const body: Record<string, unknown> = { code: failure.code, message: failure.message };
    if (failure.hint) body.hint = failure.hint;
    if (failure.details !== undefined) body.details = failure.details;
    process.stdout.write(`${JSON.stringify({ error: body }, null, 2)}\n`);
  } else {
    process.stderr.write(`error [${failure.code}]: ${failure.message}\n`);
    if (failure.hint) process.stderr.write(`  ${failure.hint}\n`);
  }
  return failure.exitCode;
}
