/**
 * Logging with pino. The API token is a password (spec §5 rule 6): any field named
 * `token` or `apiServiceToken` is redacted by path, and every token the process knows
 * is scrubbed from the serialized line as well, so it cannot leak through an error
 * message, a URL or a nested object either. Errors are logged under one key, `err`,
 * with pino's standard serializer (type, message and stack with their causes, and the
 * error's own fields), less the fields of a Postgres error that quote row values.
 */
import { hostname } from 'node:os';
import { pino, stdSerializers, type Logger, type DestinationStream } from 'pino';

export type { Logger } from 'pino';

const REDACT_PATHS = [
  'token',
  'apiServiceToken',
  'apiservicetoken',
  '*.token',
  '*.apiServiceToken',
  '*.apiservicetoken',
  '*.*.token',
  '*.*.apiServiceToken',
  '*.*.apiservicetoken',
  'headers.apiServiceToken',
  'req.headers.apiservicetoken',
];

const REDACTED = '[REDACTED]';
const secrets = new Set<string>();

/** Registers a secret (an API token, the pseudonym key) to be scrubbed from every log line from now on. */
export function registerSecret(secret: string): void {
  if (secret.length >= 4) secrets.add(secret);
}

/** Replaces every registered secret in `text` with `[REDACTED]`. */
export function scrubSecrets(text: string): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}

/**
 * Fields of node-postgres's errors that can quote the values of a row (`Key (cpf)=(…)
 * already exists`, the COPY line that failed, the query of a function): personal data,
 * never logged. The message, the SQLSTATE `code`, the table and the constraint stay.
 */
const ROW_VALUE_FIELDS = ['detail', 'where', 'internalQuery'] as const;

/** pino's standard error serializer, without {@link ROW_VALUE_FIELDS}. */
export function serializeError(err: unknown): unknown {
  const out = stdSerializers.err(err as Error) as unknown;
  if (typeof out !== 'object' || out === null || out === err) return out;
  const fields = out as Record<string, unknown>;
  for (const field of ROW_VALUE_FIELDS) delete fields[field];
  if (Array.isArray(fields.aggregateErrors)) fields.aggregateErrors = fields.aggregateErrors.map((e) => serializeError((e as { raw?: unknown }).raw ?? e));
  return fields;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level (default `info`). */
  level?: string;
  /** Where lines go (default stderr, so stdout stays for command output). */
  destination?: DestinationStream;
  /** Bound fields on every line (default: the process's `pid` and `host`). */
  base?: Record<string, unknown>;
}

/** Creates the process logger: JSON lines, token fields redacted, known tokens scrubbed, errors under `err`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? { pid: process.pid, host: hostname() },
      serializers: { err: serializeError },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: {
        streamWrite: scrubSecrets,
      },
    },
    options.destination ?? pino.destination(2),
  );
}
