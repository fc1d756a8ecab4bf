/**
 * The one convention of punchline's errors: a literal `name`, a machine-readable `code`
 * (`src/commands/exit-codes.ts` turns codes into exit codes), context in fields, and a one-line
 * message that names the thing and the fix. Every error class extends {@link PunchlineError},
 * but the sync's permanent failures extend BullMQ's `UnrecoverableError` (`src/load/errors.ts`).
 */

/** Base of punchline's errors. */
export class PunchlineError<C extends string = string> extends Error {
  override readonly name: string = 'PunchlineError';
  constructor(
    /** Machine-readable code: what callers, logs and exit codes go by. */
    readonly code: C,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** A {@link PunchlineError} class of one name and code: `class E extends errorClass('E', 'e_code') {}`. */
export function errorClass<N extends string, C extends string>(name: N, code: C) {
  return class extends PunchlineError<C> {
    override readonly name: N = name;
    constructor(message: string, options?: { cause?: unknown }) {
      super(code, message, options);
    }
  };
}
