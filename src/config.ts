/**
 * Configuration (docs/configuration.md): parsed once from the environment (and the optional
 * PUNCHLINE_CONFIG file) by one zod schema into a frozen object. Nothing else in the
 * project reads `process.env`.
 */
import { readFileSync } from 'node:fs';
import cronParser from 'cron-parser';
import { z } from 'zod';
import { isValidTimeZone } from './util/time.js';
import { passwordOf, redactUrl, userinfoProblem, withDefaultUser } from './util/database-url.js';
import { digitsOnly } from './util/registry.js';
import { errorClass } from './util/errors.js';

/** A configuration problem, reported as one line that names the setting and the fix. */
export class ConfigError extends errorClass('ConfigError', 'config_invalid') {}

/** Request budget of one connection (docs/architecture.md "The request budget"), enforced across all worker processes. */
export interface RateLimit {
  /** Most requests started in any sliding one-second window. */
  readonly rps: number;
  /** Most requests in flight at once. */
  readonly concurrency: number;
}

/** One API connection: a token of one company (headquarters or branch). */
export interface Connection {
  /** Stable name used in job ids, logs and `--connection`; never the token. */
  readonly name: string;
  /** API root; `/customer/v2/...` paths are appended. */
  readonly baseUrl: string;
  /** The `apiServiceToken` (a password: never logged or stored). */
  readonly token: string;
  /** IANA zone of the API's local date-times, for companies {@link companyTimezones} does not name. */
  readonly timezone: string;
  /**
   * spec 1.2: zones of companies whose local time is not `timezone`, by CNPJ
   * (COMPANY_TIMEZONES, then the connection's `companyTimezones`); absent when none is named.
   */
  readonly companyTimezones?: Readonly<Record<string, string>>;
  /** Request budget of this connection. */
  readonly rateLimit: RateLimit;
}

/** Cron patterns of the incremental schedule (docs/operations.md "Schedules"), in each connection's time zone. */
export interface Schedules {
  /** Whether `punchline worker` registers the schedules at all. */
  readonly enabled: boolean;
  /** Punches of the last 7 days. */
  readonly punches: string;
  /** Collaborators and lookups. */
  readonly directory: string;
  /** The re-read of the lookback horizon: older punches, totals, tardiness, adjustments, inconsistencies, hour bank and absences. */
  readonly nightly: string;
  /** How often a worker checks that its schedules still exist in Redis and registers missing ones again, ms. */
  readonly checkMs: number;
}

/** HTTP basic-auth (or bearer) credential of the dashboard's operator. */
export interface DashboardCredential {
  /** User name expected in basic auth. */
  readonly user: string;
  /** The token: the basic-auth password, or the bearer token (a secret). */
  readonly token: string;
}

/** Optional tracing (docs/operations.md "Tracing"): where the spans of jobs, API requests and loads go. */
export interface TracingSettings {
  /** OTLP/HTTP endpoint of a collector, e.g. `http://collector:4318`; spans go to its `/v1/traces`. */
  readonly endpoint: string;
  /** Headers of every export, e.g. a hosted collector's API key (secrets: never logged). */
  readonly headers: Readonly<Record<string, string>>;
  /** `service.name` of the spans. */
  readonly serviceName: string;
}

/** Tables that grow with every run and are trimmed by the nightly schedule (src/ops/retention.ts). */
export const RETAINED_TABLES = ['sync_runs', 'rejected_records', 'quality_checks'] as const;

/** One of {@link RETAINED_TABLES}. */
export type RetainedTable = (typeof RETAINED_TABLES)[number];

/** The whole parsed configuration. */
export interface Config {
  /** API connections; empty when none is configured (migrate and emulator need none). */
  readonly connections: readonly Connection[];
  /** Warehouse connection string. */
  readonly databaseUrl: string;
  /** Schema that holds every warehouse table. */
  readonly warehouseSchema: string;
  /** Redis for BullMQ and the shared request budget. */
  readonly redisUrl: string;
  /** BullMQ key prefix (isolates deployments and tests). */
  readonly queuePrefix: string;
  /** Port of the worker's dashboard, `/metrics` and `/healthz`. */
  readonly opsPort: number;
  /** Address the ops server binds: loopback unless the deployment opens it on purpose. */
  readonly opsHost: string;
  /** Operator credential the whole dashboard then needs (writes, and reads of jobs); absent = read-only dashboard for whoever reaches the port. */
  readonly dashboardCredential?: DashboardCredential;
  /** Webhook that receives alerts (a secret: its path is often the key); absent = no notifications. */
  readonly notifyWebhookUrl?: string;
  /** Tracing of jobs, API requests and loads; absent (the default) = off, nothing of the SDK loaded. */
  readonly tracing?: TracingSettings;
  /** Days of history kept in tables that grow with every run, by table (0 = keep forever). */
  readonly retentionDays: Readonly<Record<RetainedTable, number>>;
  /** Store attachment and audit-photo bytes, not only their hashes. */
  readonly storeBinaries: boolean;
  /** Fetch audit photos of punches that have one (opt-in, they are faces). */
  readonly syncAuditPhotos: boolean;
  /** pino level. */
  readonly logLevel: string;
  /** Per-request timeout of API calls, in milliseconds. */
  readonly apiTimeoutMs: number;
  /** Attempts per API request for transient failures (first try included). */
  readonly apiMaxAttempts: number;
  /** Jobs one worker process runs at once. */
  readonly workerConcurrency: number;
  /** Lock of an active job, ms: a worker that dies loses its jobs to other workers after about this long. */
  readonly workerLockMs: number;
  /** Largest API response body read whole (single objects, error answers); lists are streamed whatever their size. */
  readonly apiMaxResponseBytes: number;
  /** Longest pause between two chunks of an API answer's body, ms. */
  readonly apiBodyIdleTimeoutMs: number;
  /** A streamed API answer must be complete within this many ms of its request. */
  readonly apiAnswerDeadlineMs: number;
  /** Most bytes of one streamed API answer. */
  readonly apiMaxAnswerBytes: number;
  /** Most bytes of one element of a streamed list; a larger one becomes a rejected record. */
  readonly apiMaxElementBytes: number;
  /** Largest attachment or photo file `punchline push` sends, in bytes (checked before anything is sent). */
  readonly pushMaxFileBytes: number;
  /** Longest `Retry-After` honoured, ms: a longer one pauses the connection only this long before trying again. */
  readonly apiMaxRetryAfterMs: number;
  /** After a 401, how often a paused connection re-checks its token (one request per period across all workers), ms. */
  readonly apiTokenRecheckMs: number;
  /** How long a job waits in-process for an unreachable warehouse before it is put back to wait in the queue, ms. */
  readonly warehouseWaitMs: number;
  /** Longest pause between two checks of an unreachable warehouse (the back-off doubles up to it), ms. */
  readonly warehouseRetryMaxMs: number;
  /** Incremental schedule. */
  readonly schedules: Schedules;
  /**
   * The lookback horizon in days (docs/architecture.md "The lookback horizon"): the span in
   * which the source still changes, re-read by the nightly schedule and never recorded as done.
   */
  readonly syncLookbackDays: number;
  /** Default IANA zone of the API's local date-times (API_TIMEZONE), also when no connection is configured. */
  readonly apiTimezone: string;
  /** COMPANY_TIMEZONES: the zone of each company it names, by CNPJ, for every connection. */
  readonly companyTimezones: Readonly<Record<string, string>>;
  /**
   * Key of the CPF pseudonyms the analyst views show (PSEUDONYM_KEY or PSEUDONYM_KEY_FILE);
   * a secret: never logged, never stored in the warehouse. Undefined when not configured.
   */
  readonly pseudonymKey: string | undefined;
}

/** Shortest pseudonym key accepted: 32 characters (`openssl rand -base64 32` gives 44). */
export const PSEUDONYM_KEY_MIN_LENGTH = 32;

const DEFAULT_RPS = 5;
const DEFAULT_CONCURRENCY = 4;
const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

const IDENT_RE = /^[a-z_][a-z0-9_]{0,62}$/;

const intFrom = (name: string, min: number, max: number) =>
  z
    .string()
    .trim()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, {
      message: `${name} must be a whole number from ${min} to ${max}`,
    })
    .transform(Number);

const boolFrom = (name: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .refine((v) => ['0', '1', 'true', 'false', 'yes', 'no', ''].includes(v), {
      message: `${name} must be 1 or 0`,
    })
    .transform((v) => ['1', 'true', 'yes'].includes(v));

const urlFrom = (name: string, protocols: readonly string[]) =>
  z
    .string()
    .trim()
    .superRefine((v, ctx) => {
      // Before parsing: an unencoded "/" in a password makes a valid URL of another host.
      const problem = userinfoProblem(v);
      if (problem) return ctx.addIssue({ code: 'custom', message: `${name}: ${problem}` });
      try {
        if (protocols.includes(new URL(v).protocol)) return;
      } catch {
        // not a URL: the issue below
      }
      ctx.addIssue({ code: 'custom', message: `${name} must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL` });
    });

const timezoneFrom = (name: string) =>
  z.string().trim().refine(isValidTimeZone, { message: `${name} must be an IANA time zone such as America/Sao_Paulo` });

/** Why `pattern` is not a cron pattern BullMQ can schedule, or null when it is (five fields, or six with seconds). */
export function cronProblem(pattern: string): string | null {
  const fields = pattern.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6) return `expected 5 fields (minute hour day month weekday), got ${fields}`;
  try {
    // BullMQ's job schedulers read patterns with this same parser; one that never fires fails next().
    cronParser.parseExpression(pattern, { tz: DEFAULT_TIMEZONE }).next();
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

const cronFrom = (name: string) =>
  z
    .string()
    .trim()
    .superRefine((v, ctx) => {
      const problem = cronProblem(v);
      if (problem !== null) ctx.addIssue({ code: 'custom', message: `${name} must be a cron pattern such as "*/15 * * * *" (${problem})` });
    });

/**
 * Parses `CNPJ=Zone` pairs separated by commas (COMPANY_TIMEZONES) into a map by CNPJ;
 * throws {@link ConfigError} naming `name` and the bad pair.
 */
export function parseCompanyTimezones(name: string, value: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === undefined) return out;
  for (const raw of value.split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const bad = (why: string) => new ConfigError(`${name}: ${JSON.stringify(pair)} ${why} (write CNPJ=Zone pairs separated by commas, e.g. 11222333000262=America/Manaus)`);
    const eq = pair.indexOf('=');
    if (eq < 0) throw bad('is not a CNPJ=Zone pair');
    const cnpj = digitsOnly(pair.slice(0, eq));
    const zone = pair.slice(eq + 1).trim();
    if (!/^\d{14}$/.test(cnpj)) throw bad('does not start with a CNPJ of 14 digits');
    if (zone === '' || !isValidTimeZone(zone)) throw bad(`names no IANA time zone (${JSON.stringify(zone)})`);
    if (out[cnpj] !== undefined) throw bad(`names company ${cnpj} a second time`);
    out[cnpj] = zone;
  }
  return out;
}

/** Every environment variable punchline reads (docs/configuration.md lists them all). */
const envSchema = z.object({
  SERVICE_API_BASE_URL: urlFrom('SERVICE_API_BASE_URL', ['http:', 'https:']).optional(),
  SERVICE_API_TOKEN: z.string().trim().min(1, 'SERVICE_API_TOKEN is empty').optional(),
  PUNCHLINE_CONFIG: z.string().trim().min(1).optional(),
  DATABASE_URL: urlFrom('DATABASE_URL', ['postgres:', 'postgresql:']).default('postgres://localhost:5432/punchline'),
  WAREHOUSE_SCHEMA: z
    .string()
    .trim()
    .regex(IDENT_RE, { message: 'WAREHOUSE_SCHEMA must be a lower-case SQL identifier such as workforce' })
    .default('workforce'),
  REDIS_URL: urlFrom('REDIS_URL', ['redis:', 'rediss:']).default('redis://127.0.0.1:6379'),
  QUEUE_PREFIX: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, { message: 'QUEUE_PREFIX must be letters, digits, "_", "-" or "."' })
    .default('punchline'),
  API_TIMEZONE: timezoneFrom('API_TIMEZONE').default(DEFAULT_TIMEZONE),
  API_MAX_RPS: intFrom('API_MAX_RPS', 1, 10_000).default(DEFAULT_RPS),
  API_MAX_CONCURRENCY: intFrom('API_MAX_CONCURRENCY', 1, 1_000).default(DEFAULT_CONCURRENCY),
  API_TIMEOUT_MS: intFrom('API_TIMEOUT_MS', 100, 600_000).default(30_000),
  API_MAX_ATTEMPTS: intFrom('API_MAX_ATTEMPTS', 1, 20).default(6),
  OPS_PORT: intFrom('OPS_PORT', 0, 65_535).default(9464),
  OPS_HOST: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9._:-]{1,253}$/, { message: 'OPS_HOST must be an address or host name such as 127.0.0.1 or 0.0.0.0' })
    .default('127.0.0.1'),
  OPS_DASHBOARD_TOKEN: z
    .string()
    .trim()
    .min(16, 'OPS_DASHBOARD_TOKEN must be at least 16 characters (e.g. `openssl rand -hex 24`)')
    .optional(),
  OPS_DASHBOARD_USER: z
    .string()
    .trim()
    .regex(/^[^:\s]{1,64}$/, { message: 'OPS_DASHBOARD_USER must be 1-64 characters without ":" or spaces' })
    .default('operator'),
  NOTIFY_WEBHOOK_URL: urlFrom('NOTIFY_WEBHOOK_URL', ['http:', 'https:']).optional(),
  SYNC_RUNS_RETENTION_DAYS: intFrom('SYNC_RUNS_RETENTION_DAYS', 0, 36_500).default(90),
  REJECTED_RECORDS_RETENTION_DAYS: intFrom('REJECTED_RECORDS_RETENTION_DAYS', 0, 36_500).default(90),
  QUALITY_CHECKS_RETENTION_DAYS: intFrom('QUALITY_CHECKS_RETENTION_DAYS', 0, 36_500).default(30),
  STORE_BINARIES: boolFrom('STORE_BINARIES').default(false),
  SYNC_AUDIT_PHOTOS: boolFrom('SYNC_AUDIT_PHOTOS').default(false),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      message: 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent',
    })
    .default('info'),
  WORKER_CONCURRENCY: intFrom('WORKER_CONCURRENCY', 1, 256).default(4),
  WORKER_LOCK_MS: intFrom('WORKER_LOCK_MS', 1_000, 600_000).default(30_000),
  API_MAX_RESPONSE_BYTES: intFrom('API_MAX_RESPONSE_BYTES', 65_536, 1_073_741_824).default(16 * 1024 * 1024),
  API_BODY_IDLE_TIMEOUT_MS: intFrom('API_BODY_IDLE_TIMEOUT_MS', 1_000, 600_000).default(30_000),
  API_ANSWER_DEADLINE_MS: intFrom('API_ANSWER_DEADLINE_MS', 1_000, 86_400_000).default(600_000),
  API_MAX_ANSWER_BYTES: intFrom('API_MAX_ANSWER_BYTES', 65_536, 68_719_476_736).default(1_073_741_824),
  API_MAX_ELEMENT_BYTES: intFrom('API_MAX_ELEMENT_BYTES', 4_096, 1_073_741_824).default(32 * 1024 * 1024),
  PUSH_MAX_FILE_BYTES: intFrom('PUSH_MAX_FILE_BYTES', 1, 1_073_741_824).default(5 * 1024 * 1024),
  SCHEDULES_ENABLED: boolFrom('SCHEDULES_ENABLED').default(true),
  SCHEDULE_PUNCHES: cronFrom('SCHEDULE_PUNCHES').default('*/15 * * * *'),
  SCHEDULE_DIRECTORY: cronFrom('SCHEDULE_DIRECTORY').default('0 * * * *'),
  SCHEDULE_NIGHTLY: cronFrom('SCHEDULE_NIGHTLY').default('30 2 * * *'),
  PSEUDONYM_KEY: z
    .string()
    .trim()
    .min(PSEUDONYM_KEY_MIN_LENGTH, {
      message: `PSEUDONYM_KEY is shorter than ${PSEUDONYM_KEY_MIN_LENGTH} characters (make one with: openssl rand -base64 32)`,
    })
    .optional(),
  SCHEDULE_CHECK_MS: intFrom('SCHEDULE_CHECK_MS', 1_000, 3_600_000).default(30_000),
  API_MAX_RETRY_AFTER_MS: intFrom('API_MAX_RETRY_AFTER_MS', 1_000, 86_400_000).default(300_000),
  API_TOKEN_RECHECK_MS: intFrom('API_TOKEN_RECHECK_MS', 1_000, 86_400_000).default(180_000),
  WAREHOUSE_WAIT_MS: intFrom('WAREHOUSE_WAIT_MS', 1_000, 3_600_000).default(120_000),
  WAREHOUSE_RETRY_MAX_MS: intFrom('WAREHOUSE_RETRY_MAX_MS', 100, 600_000).default(15_000),
  COMPANY_TIMEZONES: z.string().trim().optional(),
  SYNC_LOOKBACK_DAYS: intFrom('SYNC_LOOKBACK_DAYS', 7, 366).default(35),
  OTEL_EXPORTER_OTLP_ENDPOINT: urlFrom('OTEL_EXPORTER_OTLP_ENDPOINT', ['http:', 'https:']).optional(),
  OTEL_EXPORTER_OTLP_HEADERS: z.string().trim().optional(),
  OTEL_SERVICE_NAME: z
    .string()
    .trim()
    .regex(/^[\x21-\x7e]{1,128}$/, { message: 'OTEL_SERVICE_NAME must be 1-128 printable characters without spaces' })
    .default('punchline'),
});

/** Shape of the PUNCHLINE_CONFIG file (docs/configuration.md). */
const fileSchema = z.object({
  connections: z
    .array(
      z
        .object({
          name: z
            .string()
            .regex(/^[A-Za-z0-9_-]{1,40}$/, { message: 'name must be 1-40 letters, digits, "_" or "-"' }),
          baseUrl: urlFrom('baseUrl', ['http:', 'https:']),
          token: z.string().min(1).optional(),
          tokenEnv: z.string().min(1).optional(),
          tokenFile: z.string().min(1).optional(),
          timezone: timezoneFrom('timezone').optional(),
          companyTimezones: z
            .record(z.string(), timezoneFrom('companyTimezones'))
            .superRefine((zones, ctx) => {
              for (const cnpj of Object.keys(zones)) {
                if (!/^\d{14}$/.test(cnpj)) ctx.addIssue({ code: 'custom', path: [cnpj], message: 'companyTimezones keys must be CNPJs of 14 digits' });
              }
            })
            .optional(),
          rateLimit: z
            .object({
              rps: z.number().int().min(1).max(10_000).optional(),
              concurrency: z.number().int().min(1).max(1_000).optional(),
            })
            .strict()
            .optional(),
        })
        .strict()
        .refine((c) => [c.token, c.tokenEnv, c.tokenFile].filter((t) => t !== undefined).length === 1, {
          message: 'give exactly one of "token", "tokenEnv" or "tokenFile"',
        }),
    )
    .min(1, 'connections must list at least one connection'),
});

/**
 * Variables that may instead be read from a file named by `<NAME>_FILE`, as container
 * platforms hand secrets over (Docker and Kubernetes mount them as files).
 */
export const FILE_VARIABLES = ['SERVICE_API_TOKEN', 'DATABASE_URL', 'OPS_DASHBOARD_TOKEN', 'NOTIFY_WEBHOOK_URL', 'PSEUDONYM_KEY'] as const;

/** Variables whose value is never echoed in an error, not even in part. */
const SECRET_VARIABLES: ReadonlySet<string> = new Set(['SERVICE_API_TOKEN', 'OPS_DASHBOARD_TOKEN', 'NOTIFY_WEBHOOK_URL', 'PSEUDONYM_KEY', 'OTEL_EXPORTER_OTLP_HEADERS']);

/** Reads a secret file: its content without surrounding whitespace (`echo` adds a newline). */
function readSecretFile(what: string, path: string, holds: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EACCES'
          ? 'permission denied'
          : code === 'EISDIR'
            ? 'is a directory'
            : (code ?? 'cannot be read');
    throw new ConfigError(`${what} ${path}: ${reason} (point it at a file that holds ${holds})`);
  }
  const value = text.trim();
  if (value === '') throw new ConfigError(`${what} ${path}: the file is empty (it must hold ${holds})`);
  return value;
}

/**
 * Replaces each `<NAME>_FILE` by the content of that file under `<NAME>`; both set is an
 * error. Returns the variables and, for those read from a file, where they came from.
 */
function resolveFileVariables(env: Record<string, string | undefined>, raw: Env): Map<string, string> {
  const fromFile = new Map<string, string>();
  for (const name of FILE_VARIABLES) {
    const path = raw[`${name}_FILE`]?.trim();
    if (!path) continue;
    if (env[name] !== undefined) throw new ConfigError(`set ${name} or ${name}_FILE, not both`);
    env[name] = readSecretFile(`${name}_FILE`, path, `the value of ${name}`);
    fromFile.set(name, `${name}_FILE ${path}`);
  }
  return fromFile;
}

function firstIssue(error: z.ZodError, where: string): string {
  const issue = error.issues[0]!;
  const path = issue.path.join('.');
  return `${where}${path ? ` ${path}` : ''}: ${issue.message}`;
}

/**
 * Parses OTEL_EXPORTER_OTLP_HEADERS, `key=value` pairs separated by commas with the values
 * percent-encoded (the OpenTelemetry convention). An error names the bad pair by its
 * position only: the values are credentials.
 */
export function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (text === undefined) return out;
  text.split(',').forEach((pair, i) => {
    if (pair.trim() === '') return;
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) {
      throw new ConfigError(`OTEL_EXPORTER_OTLP_HEADERS: pair ${i + 1} is not key=value with a header name as key (e.g. api-key=secret,x-team=data)`);
    }
    let value: string;
    try {
      value = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(`OTEL_EXPORTER_OTLP_HEADERS: the value of pair ${i + 1} (${key}) is not valid percent-encoding`);
    }
    out[key.toLowerCase()] = value;
  });
  return out;
}

/** Environment variables as a plain record (the subset of `process.env` we read). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Defaults every connection starts from. */
interface ConnectionDefaults {
  readonly timezone: string;
  readonly companyTimezones: Readonly<Record<string, string>>;
  readonly rateLimit: RateLimit;
}

/** The connection's company zones: COMPANY_TIMEZONES, then its own; absent when none. */
function zonesOf(defaults: ConnectionDefaults, own: Readonly<Record<string, string>> = {}): { companyTimezones?: Readonly<Record<string, string>> } {
  const zones = { ...defaults.companyTimezones, ...own };
  return Object.keys(zones).length === 0 ? {} : { companyTimezones: Object.freeze(zones) };
}

function connectionsFromFile(path: string, env: Env, defaults: ConnectionDefaults): Connection[] {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    // V8's JSON errors quote the text around the fault, which may be a token: say less.
    const reason =
      (err as NodeJS.ErrnoException).code === 'ENOENT'
        ? 'file not found'
        : err instanceof SyntaxError
          ? `not valid JSON${/at position \d+/.exec(err.message)?.[0].replace(/^/, ' ') ?? ''}`
          : (err as Error).message;
    throw new ConfigError(`PUNCHLINE_CONFIG ${path}: ${reason} (point it at a JSON file with "connections")`);
  }
  const parsed = fileSchema.safeParse(raw);
  if (!parsed.success) throw new ConfigError(firstIssue(parsed.error, `PUNCHLINE_CONFIG ${path}`));
  const names = new Set<string>();
  return parsed.data.connections.map((c, i) => {
    if (names.has(c.name)) throw new ConfigError(`PUNCHLINE_CONFIG ${path}: connection name "${c.name}" is used twice`);
    names.add(c.name);
    let token = c.token;
    if (c.tokenEnv !== undefined) {
      token = env[c.tokenEnv]?.trim();
      if (!token) {
        throw new ConfigError(
          `PUNCHLINE_CONFIG ${path}: connections.${i} (${c.name}) reads its token from ${c.tokenEnv}, which is not set (export it)`,
        );
      }
    }
    if (c.tokenFile !== undefined) {
      token = readSecretFile(`PUNCHLINE_CONFIG ${path}: connections.${i} (${c.name}) tokenFile`, c.tokenFile, 'the token');
    }
    return Object.freeze({
      name: c.name,
      baseUrl: c.baseUrl.replace(/\/+$/, ''),
      token: token!,
      timezone: c.timezone ?? defaults.timezone,
      ...zonesOf(defaults, c.companyTimezones),
      rateLimit: Object.freeze({
        rps: c.rateLimit?.rps ?? defaults.rateLimit.rps,
        concurrency: c.rateLimit?.concurrency ?? defaults.rateLimit.concurrency,
      }),
    });
  });
}

/**
 * Parses the configuration from `env` (default `process.env`) into a frozen object.
 * Throws {@link ConfigError} with one line naming the bad or missing value.
 */
export function loadConfig(env: Env = process.env): Config {
  const blanked: Record<string, string | undefined> = Object.fromEntries(
    Object.keys(envSchema.shape).map((k) => [k, env[k] === undefined || env[k] === '' ? undefined : env[k]]),
  );
  const fromFile = resolveFileVariables(blanked, env);
  const parsed = envSchema.safeParse(blanked);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0] ?? 'configuration');
    const got = blanked[name];
    // Echo the bad value to help, but never a secret: not a token, not a URL's password,
    // nothing read from a secret file.
    const file = fromFile.get(name);
    const shown = file
      ? ` (read from ${file})`
      : got === undefined || SECRET_VARIABLES.has(name)
        ? ''
        : ` (got ${JSON.stringify(redactUrl(got))})`;
    throw new ConfigError(`${issue.message.startsWith(name) ? '' : `${name}: `}${issue.message}${shown}`);
  }
  const e = parsed.data;
  const defaults: ConnectionDefaults = {
    timezone: e.API_TIMEZONE,
    companyTimezones: Object.freeze(parseCompanyTimezones('COMPANY_TIMEZONES', e.COMPANY_TIMEZONES)),
    rateLimit: { rps: e.API_MAX_RPS, concurrency: e.API_MAX_CONCURRENCY },
  };

  let connections: Connection[] = [];
  if (e.PUNCHLINE_CONFIG !== undefined) {
    connections = connectionsFromFile(e.PUNCHLINE_CONFIG, env, defaults);
  } else if (e.SERVICE_API_BASE_URL !== undefined || e.SERVICE_API_TOKEN !== undefined) {
    if (e.SERVICE_API_BASE_URL === undefined) {
      throw new ConfigError('SERVICE_API_BASE_URL is not set (export the API root, e.g. https://api.example.com)');
    }
    if (e.SERVICE_API_TOKEN === undefined) {
      throw new ConfigError(
        'SERVICE_API_TOKEN is not set (export it, point SERVICE_API_TOKEN_FILE at a file holding it, or use PUNCHLINE_CONFIG)',
      );
    }
    connections = [
      Object.freeze({
        name: 'default',
        baseUrl: e.SERVICE_API_BASE_URL.replace(/\/+$/, ''),
        token: e.SERVICE_API_TOKEN,
        timezone: defaults.timezone,
        ...zonesOf(defaults),
        rateLimit: Object.freeze({ ...defaults.rateLimit }),
      }),
    ];
  }

  const pseudonymKey = e.PSEUDONYM_KEY;

  return Object.freeze({
    connections: Object.freeze(connections),
    // libpq's default: the operating-system user when the URL names none.
    databaseUrl: withDefaultUser(e.DATABASE_URL),
    warehouseSchema: e.WAREHOUSE_SCHEMA,
    redisUrl: e.REDIS_URL,
    queuePrefix: e.QUEUE_PREFIX,
    opsPort: e.OPS_PORT,
    opsHost: e.OPS_HOST,
    ...(e.OPS_DASHBOARD_TOKEN !== undefined
      ? { dashboardCredential: Object.freeze({ user: e.OPS_DASHBOARD_USER, token: e.OPS_DASHBOARD_TOKEN }) }
      : {}),
    ...(e.NOTIFY_WEBHOOK_URL !== undefined ? { notifyWebhookUrl: e.NOTIFY_WEBHOOK_URL } : {}),
    ...(e.OTEL_EXPORTER_OTLP_ENDPOINT !== undefined
      ? {
          tracing: Object.freeze({
            endpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, ''),
            headers: Object.freeze(parseOtlpHeaders(e.OTEL_EXPORTER_OTLP_HEADERS)),
            serviceName: e.OTEL_SERVICE_NAME,
          }),
        }
      : {}),
    retentionDays: Object.freeze({
      sync_runs: e.SYNC_RUNS_RETENTION_DAYS,
      rejected_records: e.REJECTED_RECORDS_RETENTION_DAYS,
      quality_checks: e.QUALITY_CHECKS_RETENTION_DAYS,
    }),
    storeBinaries: e.STORE_BINARIES,
    syncAuditPhotos: e.SYNC_AUDIT_PHOTOS,
    logLevel: e.LOG_LEVEL,
    apiTimeoutMs: e.API_TIMEOUT_MS,
    apiMaxAttempts: e.API_MAX_ATTEMPTS,
    workerConcurrency: e.WORKER_CONCURRENCY,
    workerLockMs: e.WORKER_LOCK_MS,
    apiMaxResponseBytes: e.API_MAX_RESPONSE_BYTES,
    apiBodyIdleTimeoutMs: e.API_BODY_IDLE_TIMEOUT_MS,
    apiAnswerDeadlineMs: e.API_ANSWER_DEADLINE_MS,
    apiMaxAnswerBytes: e.API_MAX_ANSWER_BYTES,
    apiMaxElementBytes: e.API_MAX_ELEMENT_BYTES,
    pushMaxFileBytes: e.PUSH_MAX_FILE_BYTES,
    apiMaxRetryAfterMs: e.API_MAX_RETRY_AFTER_MS,
    apiTokenRecheckMs: e.API_TOKEN_RECHECK_MS,
    warehouseWaitMs: e.WAREHOUSE_WAIT_MS,
    warehouseRetryMaxMs: e.WAREHOUSE_RETRY_MAX_MS,
    schedules: Object.freeze({
      enabled: e.SCHEDULES_ENABLED,
      punches: e.SCHEDULE_PUNCHES,
      directory: e.SCHEDULE_DIRECTORY,
      nightly: e.SCHEDULE_NIGHTLY,
      checkMs: e.SCHEDULE_CHECK_MS,
    }),
    syncLookbackDays: e.SYNC_LOOKBACK_DAYS,
    apiTimezone: e.API_TIMEZONE,
    companyTimezones: defaults.companyTimezones,
    pseudonymKey,
  });
}

/**
 * The connections a sync command works on: all of them, or the one named.
 * Throws {@link ConfigError} when none is configured or the name is unknown.
 */
export function selectConnections(config: Config, name?: string): readonly Connection[] {
  if (config.connections.length === 0) {
    throw new ConfigError(
      'no API connection configured: set SERVICE_API_BASE_URL and SERVICE_API_TOKEN, or PUNCHLINE_CONFIG',
    );
  }
  if (name === undefined) return config.connections;
  const found = config.connections.find((c) => c.name === name);
  if (!found) {
    throw new ConfigError(
      `unknown connection "${name}" (configured: ${config.connections.map((c) => c.name).join(', ')})`,
    );
  }
  return [found];
}

/**
 * spec 1.2: the IANA zone of a company's local date-times on `connection`: the zone
 * COMPANY_TIMEZONES (or the connection's `companyTimezones`) names for it, else the
 * connection's. Without a company (group-level work), the connection's.
 */
export function companyTimezone(connection: Pick<Connection, 'timezone' | 'companyTimezones'>, cnpj: string | undefined): string {
  return (cnpj === undefined ? undefined : connection.companyTimezones?.[cnpj]) ?? connection.timezone;
}

/**
 * Every secret of `config` that must never reach a log line: API tokens, the passwords
 * of the warehouse and Redis URLs, the dashboard token, the webhook URL and the tracing
 * collector's headers and password.
 */
export function configSecrets(config: Config): string[] {
  return [
    ...config.connections.map((c) => c.token),
    config.pseudonymKey ?? '',
    passwordOf(config.databaseUrl),
    passwordOf(config.redisUrl),
    config.dashboardCredential?.token ?? '',
    // The webhook URL as configured and as URL parsing prints it (a trailing slash added).
    config.notifyWebhookUrl ?? '',
    config.notifyWebhookUrl ? new URL(config.notifyWebhookUrl).href : '',
    ...Object.values(config.tracing?.headers ?? {}),
    config.tracing ? passwordOf(config.tracing.endpoint) : '',
  ].filter((s) => s !== '');
}
