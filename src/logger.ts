/**
 * Logging with pino. The API token is a password (spec §5 rule 6): any field named
 * `token` or `apiServiceToken` is redacted by path, and every token the process knows
 * is scrubbed from the serialized line as well, so it cannot leak through an error
 * message, a URL or a nested object either.
 */
import { pino, type Logger, type DestinationStream } from 'pino';

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

/** Options of {@link createLogger}. */
export interface LoggerOptions {
  /** pino level (default `info`). */
  level?: string;
  /** Where lines go (default stderr, so stdout stays for command output). */
  destination?: DestinationStream;
  /** Bound fields on every line. */
  base?: Record<string, unknown>;
}

/** Creates the process logger: JSON lines, token fields redacted, known tokens scrubbed. */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      level: options.level ?? 'info',
      base: options.base ?? { pid: process.pid },
      redact: { paths: REDACT_PATHS, censor: REDACTED },
      hooks: {
        streamWrite: scrubSecrets,
      },
    },
    options.destination ?? pino.destination(2),
  );
}
