/**
 * Logging with pino. The API token is a password (spec §5 rule 6): any field named `token` or
 * `apiServiceToken` is redacted by path, and every token the process knows is scrubbed from the
 * serialized line as well, so it cannot leak through an error message, a URL or a nested object.
 * Errors are logged under `err` with pino's standard serializer (type, message, stack, causes, own
 * fields), less the fields of a Postgres error that quote row values.
 *
 * A CPF or a name is personal data: messages identify a person by a pseudonym or a record's place
 * in its answer. As a last line, every log line (and every error text that leaves the process,
 * {@link scrubPersonal}, {@link withoutPersonalData}) has anything shaped like a CPF replaced.
 */
import { createRequire } from 'node:module';
import { hostname } from 'node:os';
import { pino, stdSerializers, type Logger, type DestinationStream } from 'pino';
import type PinoPretty from 'pino-pretty';

export type { Logger } from 'pino';

/** The token's fields, at the top of a line and two levels down, and in request headers. */
const REDACT_PATHS = [
  ...['', '*.', '*.*.'].flatMap((at) => ['token', 'apiServiceToken', 'apiservicetoken'].map((f) => at + f)),
  'headers.apiServiceToken',
  'req.headers.apiservicetoken',
];

const REDACTED = '[REDACTED]';
const secrets = new Set<string>();

/**
 * The forms a secret takes in text: as it is, JSON-escaped once (as a log line writes a string:
 * a quote or a backslash in a token gets a backslash before it) and twice (an error message
 * quoting a JSON body, then written in a log line), and with every character outside
 * printable ASCII as a `\uXXXX` escape.
 */
function formsOf(secret: string): string[] {
  const escape = (text: string) => JSON.stringify(text).slice(1, -1);
  const ascii = (text: string) =>
    text.replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const once = escape(secret);
  return [...new Set([secret, once, escape(once), ascii(once), escape(ascii(once))])];
}

/** Registers a secret (an API token, the pseudonym key) to be scrubbed from every log line from now on. */
export function registerSecret(secret: string): void {
  if (secret.length >= 4) for (const form of formsOf(secret)) secrets.add(form);
}

/** Replaces every registered secret in `text`, in each of its escaped forms, with `[REDACTED]`. */
export function scrubSecrets(text: string): string {
  // Longest first, so a form that contains another is replaced whole.
  return [...secrets]
    .sort((a, b) => b.length - a.length)
    .reduce((out, s) => out.replaceAll(s, REDACTED), text);
}

/**
 * Fields of node-postgres's errors that can quote a row's values (`Key (cpf)=(…) already exists`, a
 * failed COPY line, a function's query): never logged; message, SQLSTATE, table, constraint stay.
 */
const ROW_VALUE_FIELDS = ['detail', 'where', 'hint', 'internalQuery'] as const;

/** pino's standard error serializer, without {@link ROW_VALUE_FIELDS}, its causes' included. */
function serializeError(err: unknown): unknown {
  const out = stdSerializers.err(err as Error) as unknown;
  if (typeof out !== 'object' || out === null || out === err) return out;
  const fields = out as Record<string, unknown>;
  for (
    let o: Record<string, unknown> | undefined = fields;
    o;
    o = typeof o.cause === 'object' && o.cause !== null ? (o.cause as Record<string, unknown>) : undefined
  ) {
    for (const field of ROW_VALUE_FIELDS) delete o[field];
  }
  if (Array.isArray(fields.aggregateErrors))
    fields.aggregateErrors = fields.aggregateErrors.map((e) =>
      serializeError((e as { raw?: unknown }).raw ?? e),
    );
  return fields;
}

/** A CPF as 11 digits or formatted (`123.456.789-09`), never inside a longer number. */
const CPF_SHAPED = /(?<![0-9])(?:[0-9]{3}\.[0-9]{3}\.[0-9]{3}-[0-9]{2}|[0-9]{11})(?![0-9])/g;

/** Replaces anything shaped like a CPF in `text` with `[cpf]` (a last line: messages are written without them). */
export function scrubPersonal(text: string): string {
  return text.replace(CPF_SHAPED, '[cpf]');
}

/** A Postgres error (pg's DatabaseError): a five-character SQLSTATE and a severity. */
function isDatabaseError(err: unknown): err is Error & { code: string; severity: string } {
  const e = err as { code?: unknown; severity?: unknown } | null;
  return (
    err instanceof Error &&
    typeof e?.code === 'string' &&
    e.code.length === 5 &&
    typeof e.severity === 'string'
  );
}

/**
 * Makes `err` itself fit to leave the process (a job's failure in Redis, a run's error in the
 * warehouse, an alert) and returns it: a database error's row-quoting fields dropped and the values
 * its message quotes withheld (`invalid input syntax for type date: "…"`), anything shaped like a
 * CPF replaced in its message and stack.
 */
export function withoutPersonalData<E extends Error>(err: E): E {
  if (isDatabaseError(err)) {
    const fields = err as unknown as Record<string, unknown>;
    for (const f of ROW_VALUE_FIELDS) delete fields[f];
    const message = err.message.replace(/(:\s|value\s)"(?:[^"\\]|\\.)*"/g, '$1"(value withheld)"');
    if (message !== err.message) {
      err.stack = err.stack?.replace(err.message, message);
      err.message = message;
    }
  }
  err.message = scrubPersonal(err.message);
  if (err.stack !== undefined) err.stack = scrubPersonal(err.stack);
  return err;
}

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level (default `info`). */
  level?: string;
  /** Where lines go (default stderr, so stdout stays for command output). */
  destination?: DestinationStream;
  /** Bound fields on every line (default: the process's `pid` and `host`). */
  base?: Record<string, unknown>;
  /** `LOG_FORMAT`: `json` (default), one JSON object per line; `pretty`, pino-pretty's lines for people. */
  format?: string;
}

/**
 * pino-pretty writing to stderr as each line comes (synchronously, like `pino.destination(2)`),
 * in colour on a terminal. It receives the JSON line after the scrubbing hook, so a pretty line
 * hides the same secrets and CPFs. Loaded only when asked for: JSON needs none of it.
 */
function prettyStderr(): DestinationStream {
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof PinoPretty;
  return pretty({ destination: 2, sync: true, colorize: process.stderr.isTTY === true });
}

/** Creates the process logger: JSON lines (or pretty ones), token fields redacted, known tokens and CPF-shaped numbers scrubbed, errors under `err`. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? { pid: process.pid, host: hostname() },
      serializers: { err: serializeError },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: { streamWrite: (line) => scrubPersonal(scrubSecrets(line)) },
    },
    options.destination ?? (options.format === 'pretty' ? prettyStderr() : pino.destination(2)),
  );
}
