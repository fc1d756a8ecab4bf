/**
 * What every command receives: the parsed configuration, the logger, and where to
 * print its human-readable output. Commands return their exit code.
 */
import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

/** Shared inputs of a command. */
export interface CommandContext {
  /** Frozen configuration (src/config.ts). */
  readonly config: Config;
  /** Process logger (stderr, JSON, token-redacted). */
  readonly logger: Logger;
  /** Human output (stdout by default). */
  readonly out: NodeJS.WritableStream;
  /** Signal aborted on SIGINT/SIGTERM. */
  readonly signal: AbortSignal;
}

/** A bad argument: reported as one line, exit code 2, before any work. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly code = 'usage';
}

/** Exit codes of the CLI. */
export const EXIT = { ok: 0, failed: 1, usage: 2 } as const;
