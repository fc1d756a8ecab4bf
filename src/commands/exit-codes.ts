/**
 * The exit codes of every `punchline` command (docs/operations.md "Exit codes"), and the
 * one place that decides which of them an error ending a command gets, by the error's
 * `code` and the codes of its causes. One table for all commands, so a cron job or a
 * probe tells "the work found a problem" from "fix something first" from "try later".
 */

/** Exit codes of the CLI. */
export const EXIT = Object.freeze({
  /** Done; `status --check`: all fresh, no failed job, no paused connection. */
  ok: 0,
  /** The work ran and failed or found a problem: a failed job or row, a failing check, stale data. */
  failed: 1,
  /** Could not start until something is fixed: arguments, input file, configuration, warehouse version, token. */
  usage: 2,
  /** Could not start because Postgres, Redis or the API did not answer: run it again later. */
  unavailable: 3,
} as const);

/** One of {@link EXIT}. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * Error codes meaning "fix something first": bad arguments or configuration, a warehouse
 * not migrated or of another version than this punchline, a token the API refuses, a
 * port taken, and Postgres refusing the configured database or credentials (SQLSTATE
 * 3D000, 28000, 28P01).
 */
const USAGE_CODES: ReadonlySet<string> = new Set([
  'usage',
  'config_invalid',
  'unknown_connection',
  'warehouse_not_migrated',
  'warehouse_behind',
  'warehouse_ahead',
  'migration_changed',
  'migration_missing',
  'migration_invalid_name',
  'migration_out_of_order',
  'migration_dir',
  'privacy_not_migrated',
  'invalid_service_token',
  'ops_port_in_use',
  'ops_bind_refused',
  'demo_schema_in_use',
  'not_an_emulator',
  '3D000',
  '28000',
  '28P01',
]);

/**
 * Error codes meaning "a service did not answer": Postgres, Redis or the API unreachable,
 * or the API failing with transient errors past the attempts (punchline's own codes, and
 * the socket and Postgres start-up codes under them).
 */
const UNAVAILABLE_CODES: ReadonlySet<string> = new Set([
  'service_unavailable',
  'warehouse_unreachable',
  'api_unreachable',
  'api_unavailable',
  'emulator_unreachable',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  '57P03',
]);

/** The `code` of `err` and of each of its causes, outermost first (bounded: a cause chain may loop). */
function codesOf(err: unknown): string[] {
  const codes: string[] = [];
  let e = err as { code?: unknown; cause?: unknown } | null | undefined;
  for (let depth = 0; e && typeof e === 'object' && depth < 8; depth++) {
    if (typeof e.code === 'string') codes.push(e.code);
    e = e.cause as typeof e;
  }
  return codes;
}

/**
 * The exit code of a command that ended with `err`: {@link EXIT.usage} when a code in its
 * cause chain says something must be fixed (that wins: a refused password under
 * "unreachable" is configuration), {@link EXIT.unavailable} when one says a service did
 * not answer, {@link EXIT.failed} otherwise.
 */
export function exitCodeOf(err: unknown): ExitCode {
  const codes = codesOf(err);
  if (codes.some((c) => USAGE_CODES.has(c))) return EXIT.usage;
  if (codes.some((c) => UNAVAILABLE_CODES.has(c))) return EXIT.unavailable;
  return EXIT.failed;
}
