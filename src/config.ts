/**
 * Configuration (docs/configuration.md). Every environment variable is written once, in
 * {@link SETTINGS}: name, type with validation, default and line of docs; {@link Config} and the
 * parsing derive from it. Parsed once from the environment (and the optional PUNCHLINE_CONFIG file)
 * into a frozen object: nothing else in the project reads `process.env`.
 */
import { readFileSync } from 'node:fs';
import cronParser from 'cron-parser';
import { z } from 'zod';
import { isValidTimeZone } from './util/time.js';
import { passwordOf, redactUrl, userinfoProblem, withDefaultUser } from './util/database-url.js';
import { errorClass } from './util/errors.js';
import { digitsOnly } from './util/national-registry.js';

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
  /** spec 1.2: zones of companies whose local time is not `timezone`, by CNPJ; absent when none is named. */
  readonly companyTimezones?: Readonly<Record<string, string>>;
  /** Request budget of this connection. */
  readonly rateLimit: RateLimit;
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

const DEFAULT_TIMEZONE = 'America/Sao_Paulo';

// ---- Types of values: each builds the schema of one variable from its name (for its messages).

const int = (min: number, max: number) => (name: string) =>
  z
    .string()
    .refine((v) => /^\d+$/.test(v) && Number(v) >= min && Number(v) <= max, {
      message: `${name} must be a whole number from ${min} to ${max}`,
    })
    .transform(Number);

const bool = (name: string) =>
  z
    .string()
    .toLowerCase()
    .refine((v) => ['0', '1', 'true', 'false', 'yes', 'no', ''].includes(v), {
      message: `${name} must be 1 or 0`,
    })
    .transform((v) => ['1', 'true', 'yes'].includes(v));

const url =
  (...protocols: string[]) =>
  (name: string) =>
    z
      .string()
      .trim()
      .superRefine((v, ctx) => {
        // Before parsing: an unencoded "/" in a password makes a valid URL of another host.
        const problem = userinfoProblem(v);
        if (problem) return ctx.addIssue({ code: 'custom', message: `${name}: ${problem}` });
        if (URL.canParse(v) && protocols.includes(new URL(v).protocol)) return;
        ctx.addIssue({
          code: 'custom',
          message: `${name} must be a ${protocols.map((p) => p.replace(':', '')).join(' or ')} URL`,
        });
      });

/** Host names separated by commas (lower-cased; brackets of an IPv6 address dropped). */
const hostNames = (name: string) =>
  z
    .string()
    .transform((v) =>
      v
        .split(',')
        .map((h) =>
          h
            .trim()
            .toLowerCase()
            .replace(/^\[(.*)\]$/, '$1'),
        )
        .filter((h) => h !== ''),
    )
    .refine((list) => list.every((h) => /^[a-z0-9._:-]{1,253}$/.test(h)), {
      message: `${name} must be host names separated by commas, such as punchline-worker,ops.example.internal`,
    });

const zone = (name: string) =>
  z
    .string()
    .trim()
    .refine(isValidTimeZone, { message: `${name} must be an IANA time zone such as America/Sao_Paulo` });

const cron = (name: string) =>
  z.string().superRefine((v, ctx) => {
    const problem = cronProblem(v);
    if (problem !== null)
      ctx.addIssue({
        code: 'custom',
        message: `${name} must be a cron pattern such as "*/15 * * * *" (${problem})`,
      });
  });

/** Text matching `re`; `what` completes "NAME must be …". */
const matching = (re: RegExp, what: string) => (name: string) =>
  z.string().regex(re, { message: `${name} must be ${what}` });

/** Text of at least `min` characters; `why` completes "NAME …" when it is shorter. */
const atLeast = (min: number, why: string) => (name: string) => z.string().min(min, `${name} ${why}`);

/** Fewest bits a secret key must show (its length times the Shannon entropy of its characters). */
const MIN_KEY_BITS = 96;

/**
 * About how many bits of entropy `text` shows (pure): its length times the Shannon entropy of
 * its characters. A heuristic upper bound: `openssl rand -base64 32` shows about 200, a word
 * repeated to length far fewer. A weak pseudonym key lets anyone who knows its fingerprint
 * guess it offline and then reverse every pseudonym over the 10⁹ CPFs.
 */
export function entropyBits(text: string): number {
  const chars = [...text];
  const counts = new Map<string, number>();
  for (const c of chars) counts.set(c, (counts.get(c) ?? 0) + 1);
  let perChar = 0;
  for (const n of counts.values()) perChar -= (n / chars.length) * Math.log2(n / chars.length);
  return Math.round(perChar * chars.length);
}

const secretKey = (min: number) => (name: string) =>
  z
    .string()
    .min(min, `${name} is shorter than ${min} characters (make one with: openssl rand -base64 32)`)
    .refine((v) => entropyBits(v) >= MIN_KEY_BITS, {
      message: `${name} has too little entropy to be a key (a word or a pattern, not random bytes; make one with: openssl rand -base64 32)`,
    });

const oneOf = (values: readonly [string, ...string[]]) => (name: string) =>
  z.enum(values, { message: `${name} must be one of ${values.join(', ')}` });

const zonesByCnpj = (name: string) => z.string().transform((v) => parseCompanyTimezones(name, v));

/** One environment variable. */
export interface Setting {
  /** Its name. */
  readonly env: string;
  /** Its type: the schema of its text (trimmed; an empty variable counts as unset). */
  readonly type: (name: string) => z.ZodType;
  /** Its value when unset, written as in the environment; without one, unset means undefined. */
  readonly default?: string;
  /** What it is for: the start of its line in docs/configuration.md. */
  readonly doc: string;
  /** May instead be read from the file that `<env>_FILE` names (container secrets; docs "Secrets from files"). */
  readonly file?: true;
  /** Never echoed in an error, not even in part. */
  readonly secret?: true;
}

/** Settings grouped the way {@link Config} holds them. */
type Settings = { readonly [key: string]: Setting | Settings };

function isSetting(s: Setting | Settings): s is Setting {
  return 'env' in s && typeof s.env === 'string';
}

/** Every environment variable punchline reads, where its value lands in {@link Config}. */
const SETTINGS = {
  // Read into `connections` (and `companyTimezones`), below.
  api: {
    baseUrl: {
      env: 'SERVICE_API_BASE_URL',
      type: url('http:', 'https:'),
      doc: 'API root (`http`/`https`); the `/customer/v2/...` paths are appended, a path prefix in it is kept.',
    },
    token: {
      env: 'SERVICE_API_TOKEN',
      type: atLeast(1, 'is empty'),
      doc: "The company's `apiServiceToken`.",
      file: true,
      secret: true,
    },
    configFile: {
      env: 'PUNCHLINE_CONFIG',
      type: atLeast(1, 'is empty'),
      doc: 'Path of a JSON file with several connections',
    },
    rps: {
      env: 'API_MAX_RPS',
      type: int(1, 10_000),
      default: '5',
      doc: 'Most requests started per connection in any sliding second, across all worker processes',
    },
    concurrency: {
      env: 'API_MAX_CONCURRENCY',
      type: int(1, 1_000),
      default: '4',
      doc: 'Most requests in flight per connection, across all worker processes',
    },
    companyTimezones: {
      env: 'COMPANY_TIMEZONES',
      type: zonesByCnpj,
      doc: "The zone of companies whose local time is not their connection's, as `CNPJ=Zone` pairs separated by commas",
    },
  },
  apiTimezone: {
    env: 'API_TIMEZONE',
    type: zone,
    default: DEFAULT_TIMEZONE,
    doc: "IANA zone of the API's local date-times (spec 1.2)",
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    type: (n: string) => url('postgres:', 'postgresql:')(n).transform(withDefaultUser),
    default: 'postgres://localhost:5432/punchline',
    doc: 'Warehouse (`postgres://` or `postgresql://`).',
    file: true,
  },
  warehouseSchema: {
    env: 'WAREHOUSE_SCHEMA',
    type: matching(/^[a-z_][a-z0-9_]{0,62}$/, 'a lower-case SQL identifier such as workforce'),
    default: 'workforce',
    doc: 'Schema holding every warehouse table (lower-case SQL identifier).',
  },
  redisUrl: {
    env: 'REDIS_URL',
    type: url('redis:', 'rediss:'),
    default: 'redis://127.0.0.1:6379',
    doc: 'Redis for the job queue and the shared request budget (`redis://` or `rediss://`).',
  },
  queuePrefix: {
    env: 'QUEUE_PREFIX',
    type: matching(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, "_", "-" or "."'),
    default: 'punchline',
    doc: 'BullMQ key prefix; separates deployments (and tests) sharing a Redis.',
  },
  opsPort: {
    env: 'OPS_PORT',
    type: int(0, 65_535),
    default: '9464',
    doc: "Port of the worker's dashboard, status page (`/status`), `/metrics`, `/livez` and `/readyz`",
  },
  opsHost: {
    env: 'OPS_HOST',
    type: matching(/^[A-Za-z0-9._:-]{1,253}$/, 'an address or host name such as 127.0.0.1 or 0.0.0.0'),
    default: '127.0.0.1',
    doc: "Address the worker's ops server (dashboard, `/metrics`, `/livez`, `/readyz`) binds; another address than loopback needs `OPS_DASHBOARD_TOKEN` or `OPS_ALLOW_NO_TOKEN=1`.",
  },
  opsAllowedHosts: {
    env: 'OPS_ALLOWED_HOSTS',
    type: hostNames,
    doc: 'Host names the ops server answers besides `localhost`, `127.0.0.1`, `::1` and `OPS_HOST` (unless a wildcard), separated by commas, e.g. `punchline-worker,ops.example.internal`. A request naming another `Host` gets `421` (no DNS rebinding).',
  },
  opsAllowNoToken: {
    env: 'OPS_ALLOW_NO_TOKEN',
    type: bool,
    default: '0',
    doc: '`1` lets the ops server bind an address other than loopback without `OPS_DASHBOARD_TOKEN` (only when nothing but trusted hosts can reach the port, e.g. a container port published on 127.0.0.1); otherwise such a start is refused.',
  },
  opsMetricsOpen: {
    env: 'OPS_METRICS_OPEN',
    type: bool,
    default: '0',
    doc: '`1` serves `/metrics` without the operator credential even when `OPS_DASHBOARD_TOKEN` is set (a scraper that cannot send one); by default `/metrics` then needs it.',
  },
  // Read into `dashboardCredential`, below.
  dashboard: {
    token: {
      env: 'OPS_DASHBOARD_TOKEN',
      type: atLeast(16, 'must be at least 16 characters (e.g. `openssl rand -hex 24`)'),
      doc: 'Operator credential of the dashboard (at least 16 characters, e.g. `openssl rand -hex 24`).',
      file: true,
      secret: true,
    },
    user: {
      env: 'OPS_DASHBOARD_USER',
      type: matching(/^[^:\s]{1,64}$/, '1-64 characters without ":" or spaces'),
      default: 'operator',
      doc: "User name expected in the dashboard's basic auth.",
    },
  },
  notifyWebhookUrl: {
    env: 'NOTIFY_WEBHOOK_URL',
    type: url('http:', 'https:'),
    doc: "`http`/`https` URL that receives a JSON `POST` when a job fails for good, a connection's token is rejected (401) or a company's data gets older than its schedule allows",
    file: true,
    secret: true,
  },
  // Read into `tracing`, below.
  otel: {
    endpoint: {
      env: 'OTEL_EXPORTER_OTLP_ENDPOINT',
      type: url('http:', 'https:'),
      doc: 'Turns tracing on: each job, API request and load becomes an OpenTelemetry span sent over OTLP/HTTP to this collector',
    },
    headers: {
      env: 'OTEL_EXPORTER_OTLP_HEADERS',
      type: () => z.string(),
      doc: 'Headers sent with every export, as `key=value` pairs separated by commas, values percent-encoded',
      secret: true,
    },
    serviceName: {
      env: 'OTEL_SERVICE_NAME',
      type: matching(/^[\x21-\x7e]{1,128}$/, '1-128 printable characters without spaces'),
      default: 'punchline',
      doc: '`service.name` of the spans',
    },
  },
  /** Days of history kept in tables that grow with every run, by table (0 = keep forever; src/warehouse/retention.ts). */
  retentionDays: {
    sync_runs: {
      env: 'SYNC_RUNS_RETENTION_DAYS',
      type: int(0, 36_500),
      default: '90',
      doc: 'Days of `sync_runs` history kept',
    },
    rejected_records: {
      env: 'REJECTED_RECORDS_RETENTION_DAYS',
      type: int(0, 36_500),
      default: '90',
      doc: 'Days a rejected record is kept after a later sync resolved it (`rejected_records.resolved_at`)',
    },
    quality_checks: {
      env: 'QUALITY_CHECKS_RETENTION_DAYS',
      type: int(0, 36_500),
      default: '30',
      doc: 'Days of `quality_checks` history kept',
    },
  },
  storeBinaries: {
    env: 'STORE_BINARIES',
    type: bool,
    default: '0',
    doc: '`1` stores attachment and audit-photo bytes in the warehouse, not only their SHA-256 and size.',
  },
  syncAuditPhotos: {
    env: 'SYNC_AUDIT_PHOTOS',
    type: bool,
    default: '0',
    doc: '`1` fetches the audit photo of every punch that has one (opt-in: they are faces).',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    type: oneOf(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    doc: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`.',
  },
  apiTimeoutMs: {
    env: 'API_TIMEOUT_MS',
    type: int(100, 600_000),
    default: '30000',
    doc: 'Timeout of one HTTP attempt, in ms',
  },
  apiMaxAttempts: {
    env: 'API_MAX_ATTEMPTS',
    type: int(1, 20),
    default: '6',
    doc: 'Attempts per API request for transient failures, first try included',
  },
  workerConcurrency: {
    env: 'WORKER_CONCURRENCY',
    type: int(1, 256),
    default: '4',
    doc: 'Jobs one worker process runs at once, per queue',
  },
  workerLockMs: {
    env: 'WORKER_LOCK_MS',
    type: int(1_000, 600_000),
    default: '30000',
    doc: "How long a worker's lock on a job lasts without renewal",
  },
  apiMaxResponseBytes: {
    env: 'API_MAX_RESPONSE_BYTES',
    type: int(65_536, 1_073_741_824),
    default: '16777216',
    doc: 'Largest answer read whole',
  },
  apiBodyIdleTimeoutMs: {
    env: 'API_BODY_IDLE_TIMEOUT_MS',
    type: int(1_000, 600_000),
    default: '30000',
    doc: "Longest pause between two chunks of an answer's body, in ms",
  },
  apiAnswerDeadlineMs: {
    env: 'API_ANSWER_DEADLINE_MS',
    type: int(1_000, 86_400_000),
    default: '600000',
    doc: 'A streamed answer, from its request to its last byte, must be complete within this many ms',
  },
  apiMaxAnswerBytes: {
    env: 'API_MAX_ANSWER_BYTES',
    type: int(65_536, 68_719_476_736),
    default: '1073741824',
    doc: 'Most bytes of one streamed answer',
  },
  apiMaxElementBytes: {
    env: 'API_MAX_ELEMENT_BYTES',
    type: int(4_096, 1_073_741_824),
    default: '33554432',
    doc: 'Most bytes of one element of a streamed list',
  },
  pushMaxFileBytes: {
    env: 'PUSH_MAX_FILE_BYTES',
    type: int(1, 1_073_741_824),
    default: '5242880',
    doc: 'Largest attachment (`push absences`) or face photo (`push photos`, file or inline base64) that `punchline push` sends, in bytes',
  },
  apiMaxRetryAfterMs: {
    env: 'API_MAX_RETRY_AFTER_MS',
    type: int(1_000, 86_400_000),
    default: '300000',
    doc: 'Longest `Retry-After` honoured.',
  },
  apiTokenRecheckMs: {
    env: 'API_TOKEN_RECHECK_MS',
    type: int(1_000, 86_400_000),
    default: '180000',
    doc: 'After a 401 the connection pauses; this is how often its token is re-checked',
  },
  warehouseWaitMs: {
    env: 'WAREHOUSE_WAIT_MS',
    type: int(1_000, 3_600_000),
    default: '120000',
    doc: 'How long a job waits in-process for an unreachable warehouse before it goes back to the queue',
  },
  warehouseRetryMaxMs: {
    env: 'WAREHOUSE_RETRY_MAX_MS',
    type: int(100, 600_000),
    default: '15000',
    doc: 'Longest pause between two checks of an unreachable warehouse',
  },
  /** Cron patterns of the incremental schedule (docs/operations.md "Schedules"), in each connection's time zone. */
  schedules: {
    enabled: {
      env: 'SCHEDULES_ENABLED',
      type: bool,
      default: '1',
      doc: '`0` makes `punchline worker` process jobs without registering the incremental schedule.',
    },
    punches: {
      env: 'SCHEDULE_PUNCHES',
      type: cron,
      default: '*/15 * * * *',
      doc: "Cron of the punches sync (last 7 days), in each connection's time zone.",
    },
    directory: {
      env: 'SCHEDULE_DIRECTORY',
      type: cron,
      default: '0 * * * *',
      doc: 'Cron of the collaborators and lookups sync.',
    },
    nightly: {
      env: 'SCHEDULE_NIGHTLY',
      type: cron,
      default: '30 2 * * *',
      doc: 'Cron of the re-read of the lookback horizon (`SYNC_LOOKBACK_DAYS`)',
    },
    checkMs: {
      env: 'SCHEDULE_CHECK_MS',
      type: int(1_000, 3_600_000),
      default: '30000',
      doc: 'How often a worker that registers schedules checks that each still exists in Redis, and registers missing ones again',
    },
  },
  syncLookbackDays: {
    env: 'SYNC_LOOKBACK_DAYS',
    type: int(7, 366),
    default: '35',
    doc: 'The lookback horizon, in days',
  },
  pseudonymKey: {
    env: 'PSEUDONYM_KEY',
    type: secretKey(32),
    doc: 'Secret key (HMAC-SHA-256) of the CPF pseudonyms the analyst views show',
    file: true,
    secret: true,
  },
} as const satisfies Settings;

/** The value of a setting, or of a group of them. */
type ValueOf<S> = S extends Setting
  ? z.output<ReturnType<S['type']>> | (S extends { default: string } ? never : undefined)
  : { readonly [K in keyof S]: ValueOf<S[K]> };

type Parsed = ValueOf<typeof SETTINGS>;

/** The whole parsed configuration: one field per setting of {@link SETTINGS} (its `doc` says what it is for), and what is read from several. */
export type Config = Omit<Parsed, 'api' | 'dashboard' | 'otel'> & {
  /** API connections; empty when none is configured (migrate and emulator need none). */
  readonly connections: readonly Connection[];
  /** COMPANY_TIMEZONES: the zone of each company it names, by CNPJ, for every connection. */
  readonly companyTimezones: Readonly<Record<string, string>>;
  /** Operator credential the whole dashboard then needs (writes, and reads of jobs); absent = read-only dashboard for whoever reaches the port. */
  readonly dashboardCredential?: DashboardCredential;
  /** Tracing of jobs, API requests and loads; absent (the default) = off, nothing of the SDK loaded. */
  readonly tracing?: TracingSettings;
};

/** One of the tables whose history {@link Config.retentionDays} bounds. */
export type RetainedTable = keyof Config['retentionDays'];

/** Every setting of a group, in table order. */
function settingsOf(group: Settings): Setting[] {
  return Object.values(group).flatMap((s) => (isSetting(s) ? [s] : settingsOf(s)));
}

/** Every environment variable of {@link SETTINGS} (docs/configuration.md lists them all, test/docs-config.unit.test.ts checks it). */
export const VARIABLES: readonly Setting[] = settingsOf(SETTINGS);

/** Why `pattern` is not a cron pattern BullMQ can schedule, or null when it is (five fields, or six with seconds). */
function cronProblem(pattern: string): string | null {
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

/** COMPANY_TIMEZONES (`CNPJ=Zone,...`) as a map by CNPJ; throws {@link ConfigError} naming a bad pair. */
function parseCompanyTimezones(name: string, value: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of value.split(',')) {
    const pair = raw.trim();
    if (pair === '') continue;
    const bad = (why: string) =>
      new ConfigError(
        `${name}: ${JSON.stringify(pair)} ${why} (write CNPJ=Zone pairs separated by commas, e.g. 11222333000262=America/Manaus)`,
      );
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

/** One connection of the PUNCHLINE_CONFIG file. */
const connectionSchema = z
  .object({
    name: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,40}$/, { message: 'name must be 1-40 letters, digits, "_" or "-"' }),
    baseUrl: url('http:', 'https:')('baseUrl'),
    token: z.string().min(1).optional(),
    tokenEnv: z.string().min(1).optional(),
    tokenFile: z.string().min(1).optional(),
    timezone: zone('timezone').optional(),
    companyTimezones: z
      .record(z.string(), zone('companyTimezones'))
      .superRefine((zones, ctx) => {
        for (const cnpj of Object.keys(zones)) {
          if (!/^\d{14}$/.test(cnpj))
            ctx.addIssue({
              code: 'custom',
              path: [cnpj],
              message: 'companyTimezones keys must be CNPJs of 14 digits',
            });
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
  });

/** Shape of the PUNCHLINE_CONFIG file (docs/configuration.md). */
const fileSchema = z.object({
  connections: z.array(connectionSchema).min(1, 'connections must list at least one connection'),
});

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

/** The text of `s` in `env` (empty = unset) or of the file `<env>_FILE` names (`from`), not both. */
function textOf(s: Setting, env: Env): { text?: string; from?: string } {
  const own = env[s.env] === '' ? undefined : env[s.env];
  const path = s.file ? env[`${s.env}_FILE`]?.trim() : undefined;
  if (!path) return own === undefined ? {} : { text: own };
  if (own !== undefined) throw new ConfigError(`set ${s.env} or ${s.env}_FILE, not both`);
  return {
    text: readSecretFile(`${s.env}_FILE`, path, `the value of ${s.env}`),
    from: `${s.env}_FILE ${path}`,
  };
}

/** Where a setting's effective text comes from: the environment, the file `<env>_FILE` names, its default, or nowhere. */
export type SettingOrigin =
  | { readonly source: 'env'; readonly text: string }
  | { readonly source: 'file'; readonly text: string; readonly file: string }
  | { readonly source: 'default'; readonly text: string }
  | { readonly source: 'unset' };

/** The effective text of `s` in `env` and where it comes from (secrets in clear: the caller masks them). */
export function settingOrigin(s: Setting, env: Env): SettingOrigin {
  const { text, from } = textOf(s, env);
  if (text !== undefined)
    return from ? { source: 'file', text, file: from } : { source: 'env', text: text.trim() };
  return s.default === undefined ? { source: 'unset' } : { source: 'default', text: s.default };
}

/** Parses one setting; throws {@link ConfigError} naming it, echoing the bad value unless it is a secret. */
function parseSetting(s: Setting, env: Env): unknown {
  const { text, from } = textOf(s, env);
  const value = text ?? s.default;
  if (value === undefined) return undefined;
  const parsed = s.type(s.env).safeParse(value.trim());
  if (parsed.success) return parsed.data;
  const message = parsed.error.issues[0]!.message;
  // Echo the bad value to help, but never a secret: not a token, not a URL's password, nothing read from a secret file.
  const shown = from ? ` (read from ${from})` : s.secret ? '' : ` (got ${JSON.stringify(redactUrl(value))})`;
  throw new ConfigError(`${message.startsWith(s.env) ? '' : `${s.env}: `}${message}${shown}`);
}

function parseGroup<S extends Settings>(group: S, env: Env): ValueOf<S> {
  const entries = Object.entries(group).map(([key, s]) => [
    key,
    isSetting(s) ? parseSetting(s, env) : parseGroup(s, env),
  ]);
  return Object.freeze(Object.fromEntries(entries)) as ValueOf<S>;
}

/**
 * Parses OTEL_EXPORTER_OTLP_HEADERS, `key=value` pairs separated by commas, values percent-encoded
 * (the OpenTelemetry convention). An error names a bad pair by position only: values are credentials.
 */
function parseOtlpHeaders(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  (text ?? '').split(',').forEach((pair, i) => {
    if (pair.trim() === '') return;
    const at = pair.indexOf('=');
    const key = at > 0 ? pair.slice(0, at).trim() : '';
    if (!/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/.test(key)) {
      throw new ConfigError(
        `OTEL_EXPORTER_OTLP_HEADERS: pair ${i + 1} is not key=value with a header name as key (e.g. api-key=secret,x-team=data)`,
      );
    }
    try {
      out[key.toLowerCase()] = decodeURIComponent(pair.slice(at + 1).trim());
    } catch {
      throw new ConfigError(
        `OTEL_EXPORTER_OTLP_HEADERS: the value of pair ${i + 1} (${key}) is not valid percent-encoding`,
      );
    }
  });
  return out;
}

/** Environment variables as a plain record (the subset of `process.env` we read). */
export type Env = Readonly<Record<string, string | undefined>>;

/** Defaults every connection starts from. */
type ConnectionDefaults = Required<Pick<Connection, 'timezone' | 'rateLimit' | 'companyTimezones'>>;

/** A frozen connection: `own` settings over the defaults; its company zones are COMPANY_TIMEZONES, then its own (absent when none). */
function connection(
  d: ConnectionDefaults,
  c: {
    name: string;
    baseUrl: string;
    token: string;
    timezone?: string;
    companyTimezones?: Record<string, string>;
    rateLimit?: Partial<RateLimit>;
  },
): Connection {
  const zones = { ...d.companyTimezones, ...c.companyTimezones };
  return Object.freeze({
    name: c.name,
    baseUrl: c.baseUrl.replace(/\/+$/, ''),
    token: c.token,
    timezone: c.timezone ?? d.timezone,
    ...(Object.keys(zones).length === 0 ? {} : { companyTimezones: Object.freeze(zones) }),
    rateLimit: Object.freeze({
      rps: c.rateLimit?.rps ?? d.rateLimit.rps,
      concurrency: c.rateLimit?.concurrency ?? d.rateLimit.concurrency,
    }),
  });
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
  if (!parsed.success) {
    const { path: at, message } = parsed.error.issues[0]!;
    throw new ConfigError(`PUNCHLINE_CONFIG ${path}${at.length ? ` ${at.join('.')}` : ''}: ${message}`);
  }
  const names = new Set<string>();
  return parsed.data.connections.map((c, i) => {
    if (names.has(c.name))
      throw new ConfigError(`PUNCHLINE_CONFIG ${path}: connection name "${c.name}" is used twice`);
    names.add(c.name);
    let token = c.token;
    if (c.tokenEnv !== undefined) {
      token = env[c.tokenEnv]?.trim();
      if (!token)
        throw new ConfigError(
          `PUNCHLINE_CONFIG ${path}: connections.${i} (${c.name}) reads its token from ${c.tokenEnv}, which is not set (export it)`,
        );
    }
    if (c.tokenFile !== undefined)
      token = readSecretFile(
        `PUNCHLINE_CONFIG ${path}: connections.${i} (${c.name}) tokenFile`,
        c.tokenFile,
        'the token',
      );
    return connection(defaults, { ...c, token: token! });
  });
}

/** The connections of the environment: PUNCHLINE_CONFIG's, or the one of SERVICE_API_BASE_URL and SERVICE_API_TOKEN, or none. */
function connectionsOf(api: Parsed['api'], env: Env, defaults: ConnectionDefaults): Connection[] {
  if (api.configFile !== undefined) return connectionsFromFile(api.configFile, env, defaults);
  if (api.baseUrl === undefined && api.token === undefined) return [];
  if (api.baseUrl === undefined)
    throw new ConfigError(
      'SERVICE_API_BASE_URL is not set (export the API root, e.g. https://api.example.com)',
    );
  if (api.token === undefined) {
    throw new ConfigError(
      'SERVICE_API_TOKEN is not set (export it, point SERVICE_API_TOKEN_FILE at a file holding it, or use PUNCHLINE_CONFIG)',
    );
  }
  return [connection(defaults, { name: 'default', baseUrl: api.baseUrl, token: api.token })];
}

/** Parses `env` into a frozen {@link Config}; a {@link ConfigError} names a bad or missing value. */
export function loadConfig(env: Env = process.env): Config {
  const { api, dashboard, otel, ...direct } = parseGroup(SETTINGS, env);
  const companyTimezones = Object.freeze(api.companyTimezones ?? {});
  const defaults = {
    timezone: direct.apiTimezone,
    companyTimezones,
    rateLimit: { rps: api.rps, concurrency: api.concurrency },
  };
  return Object.freeze({
    ...direct,
    connections: Object.freeze(connectionsOf(api, env, defaults)),
    companyTimezones,
    ...(dashboard.token === undefined
      ? {}
      : { dashboardCredential: Object.freeze({ user: dashboard.user, token: dashboard.token }) }),
    ...(otel.endpoint === undefined
      ? {}
      : {
          tracing: Object.freeze({
            endpoint: otel.endpoint.replace(/\/+$/, ''),
            headers: Object.freeze(parseOtlpHeaders(otel.headers)),
            serviceName: otel.serviceName,
          }),
        }),
  });
}

/** The connections a sync command works on: all, or the one named; {@link ConfigError} if none or unknown. */
export function selectConnections(config: Config, name?: string): readonly Connection[] {
  if (config.connections.length === 0)
    throw new ConfigError(
      'no API connection configured: set SERVICE_API_BASE_URL and SERVICE_API_TOKEN, or PUNCHLINE_CONFIG',
    );
  if (name === undefined) return config.connections;
  const found = config.connections.find((c) => c.name === name);
  if (!found)
    throw new ConfigError(
      `unknown connection "${name}" (configured: ${config.connections.map((c) => c.name).join(', ')})`,
    );
  return [found];
}

/**
 * spec 1.2: the IANA zone of a company's local date-times on `connection`: the one COMPANY_TIMEZONES
 * (or the connection's `companyTimezones`) names for it, else (or for group-level work) the connection's.
 */
export function companyTimezone(
  connection: Pick<Connection, 'timezone' | 'companyTimezones'>,
  cnpj: string | undefined,
): string {
  return (cnpj === undefined ? undefined : connection.companyTimezones?.[cnpj]) ?? connection.timezone;
}

/**
 * Every secret of `config` that must never reach a log line: API tokens, the pseudonym key, the
 * warehouse and Redis passwords, the dashboard token, the webhook URL, the tracing secrets.
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
