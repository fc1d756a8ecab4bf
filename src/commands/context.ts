/**
 * src/commands/ — the `punchline` commands, one file each; src/cli.ts parses and dispatches. Each
 * receives the configuration, the logger and where to print its output, and returns its exit code.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

/** Shared inputs of a command. */
export interface CommandContext {
  readonly config: Config;
  /** Process logger (stderr, JSON, token-redacted). */
  readonly logger: Logger;
  /** Human output (stdout by default). */
  readonly out: NodeJS.WritableStream;
  /** Signal aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
  /** The variables a `.env` file set (not already in the environment), for `punchline config`. */
  readonly fromDotenv?: ReadonlySet<string>;
}

export { UsageError } from '../util/usage-error.js';
export { EXIT, type ExitCode } from './exit-codes.js';
