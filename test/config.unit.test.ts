import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  ConfigError,
  companyTimezone,
  configSecrets,
  entropyBits,
  loadConfig,
  selectConnections,
  type Env,
} from '../src/config.js';
import { passwordOf, redactUrl } from '../src/util/database-url.js';

const dir = mkdtempSync(join(tmpdir(), 'punchline-config-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let files = 0;
function configFile(content: unknown): string {
  const path = join(dir, `config-${files++}.json`);
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  return path;
}

const TOKEN = 'tok-3f9a-secret-value';
const BASE: Env = { SERVICE_API_BASE_URL: 'https://api.example.com/', SERVICE_API_TOKEN: TOKEN };

/** The ConfigError message of loading `env` (fails the test when it loads). */
function errorOf(env: Env): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).code).toBe('config_invalid');
    const message = (err as Error).message;
    expect(message).not.toContain('\n');
    return message;
  }
  throw new Error('expected a ConfigError');
}

describe('loadConfig defaults', () => {
  it('gives the documented defaults and no connection when nothing is set', () => {
    const c = loadConfig({});
    expect(c.connections).toEqual([]);
    // libpq's default user (the OS user) is filled in when the URL names none.
    expect(c.databaseUrl).toBe(`postgres://${userInfo().username}@localhost:5432/punchline`);
    expect(c.warehouseSchema).toBe('workforce');
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(c.queuePrefix).toBe('punchline');
    expect(c.opsPort).toBe(9464);
    expect(c.apiTimeoutMs).toBe(30_000);
    expect(c.apiMaxAttempts).toBe(6);
    expect(c.storeBinaries).toBe(false);
    expect(c.syncAuditPhotos).toBe(false);
    expect(c.logLevel).toBe('info');
    expect(c.workerConcurrency).toBe(4);
    expect(c.schedules).toEqual({
      enabled: true,
      punches: '*/15 * * * *',
      directory: '0 * * * *',
      nightly: '30 2 * * *',
      checkMs: 30_000,
    });
    expect(c.opsHost).toBe('127.0.0.1');
    expect(c.dashboardCredential).toBeUndefined();
    expect(c.notifyWebhookUrl).toBeUndefined();
    expect(c.retentionDays).toEqual({ sync_runs: 90, rejected_records: 90, quality_checks: 30 });
  });

  it('bounds streamed answers by default, and reads the bounds as given', () => {
    const c = loadConfig({});
    expect([
      c.apiBodyIdleTimeoutMs,
      c.apiAnswerDeadlineMs,
      c.apiMaxAnswerBytes,
      c.apiMaxElementBytes,
    ]).toEqual([30_000, 600_000, 1_073_741_824, 33_554_432]);
    const set = loadConfig({
      API_BODY_IDLE_TIMEOUT_MS: '5000',
      API_ANSWER_DEADLINE_MS: '60000',
      API_MAX_ANSWER_BYTES: '1048576',
      API_MAX_ELEMENT_BYTES: '65536',
    });
    expect([
      set.apiBodyIdleTimeoutMs,
      set.apiAnswerDeadlineMs,
      set.apiMaxAnswerBytes,
      set.apiMaxElementBytes,
    ]).toEqual([5_000, 60_000, 1_048_576, 65_536]);
    expect(() => loadConfig({ API_BODY_IDLE_TIMEOUT_MS: '100' })).toThrow(
      /API_BODY_IDLE_TIMEOUT_MS must be a whole number from 1000 to 600000/,
    );
    expect(() => loadConfig({ API_MAX_ELEMENT_BYTES: '1kb' })).toThrow(
      /API_MAX_ELEMENT_BYTES must be a whole number from 4096 to 1073741824/,
    );
  });

  it('builds one "default" connection from SERVICE_API_BASE_URL and SERVICE_API_TOKEN', () => {
    const c = loadConfig({
      ...BASE,
      API_TIMEZONE: 'America/Manaus',
      API_MAX_RPS: '12',
      API_MAX_CONCURRENCY: '3',
    });
    expect(c.connections).toEqual([
      {
        name: 'default',
        baseUrl: 'https://api.example.com',
        token: TOKEN,
        timezone: 'America/Manaus',
        rateLimit: { rps: 12, concurrency: 3 },
      },
    ]);
    expect(loadConfig(BASE).connections[0]!.timezone).toBe('America/Sao_Paulo');
  });

  it('treats empty variables as unset', () => {
    const c = loadConfig({ ...BASE, OPS_PORT: '', LOG_LEVEL: '', STORE_BINARIES: '' });
    expect(c.opsPort).toBe(9464);
    expect(c.logLevel).toBe('info');
    expect(c.storeBinaries).toBe(false);
  });

  it('reads booleans as 1/0, true/false, yes/no', () => {
    expect(loadConfig({ STORE_BINARIES: '1', SYNC_AUDIT_PHOTOS: 'TRUE' })).toMatchObject({
      storeBinaries: true,
      syncAuditPhotos: true,
    });
    expect(loadConfig({ SCHEDULES_ENABLED: 'no' }).schedules.enabled).toBe(false);
  });
});

describe('DATABASE_URL', () => {
  it('keeps a user the URL names', () => {
    expect(loadConfig({ DATABASE_URL: 'postgres://bi@db:5432/wh' }).databaseUrl).toBe(
      'postgres://bi@db:5432/wh',
    );
  });

  it.each([
    ['postgres://u:pa/ss@127.0.0.1/db', 'pa/ss', '"/"'],
    // A valid URL of host "u", port 1234: it must not be taken for one.
    ['postgres://u:1234/ab@127.0.0.1:5432/db', '1234/ab', '"/"'],
    ['postgres://u:se?cr/et@127.0.0.1/db', 'se?cr/et', '"?", "/"'],
    ['postgres://u:p#w@127.0.0.1/db', 'p#w', '"#"'],
  ])(
    'refuses %s, whose password holds an unencoded delimiter, without printing the password',
    (url, password, named) => {
      const message = errorOf({ DATABASE_URL: url });
      expect(message).toContain(`DATABASE_URL: its user name or password holds ${named} not percent-encoded`);
      expect(message).toContain('postgres://u:***@');
      expect(message).not.toContain(password);
    },
  );

  it('refuses the same in REDIS_URL', () => {
    const message = errorOf({ REDIS_URL: 'redis://:pw/with/slashes@127.0.0.1:6379' });
    expect(message).toMatch(
      /^REDIS_URL: its user name or password holds "\/" not percent-encoded \(write \/ as %2F\)/,
    );
    expect(message).not.toContain('slashes');
  });

  it('takes a percent-encoded password as it is, and knows it as a secret', () => {
    const c = loadConfig({ ...BASE, DATABASE_URL: 'postgres://u:pa%2Fss@127.0.0.1/db' });
    expect(c.databaseUrl).toBe('postgres://u:pa%2Fss@127.0.0.1/db');
    expect(configSecrets(c)).toContain('pa/ss');
  });
});

describe('redactUrl', () => {
  it.each([
    ['postgres://u:pa/ss@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:1234/ab@h:5432/db', 'postgres://u:***@h:5432/db'],
    ['postgres://u:p@ss@h/db', 'postgres://u:***@h/db'],
    ['postgres://u:p?x#y@h/db?sslmode=require', 'postgres://u:***@h/db?sslmode=require'],
    ['redis://:pw/x@h:6379', 'redis://:***@h:6379'],
    [
      'postgres://h/db?user=u&password=secret-1&sslpassword=secret-2',
      'postgres://h/db?user=u&password=***&sslpassword=***',
    ],
    ['postgres://bi@db:5432/wh', 'postgres://bi@db:5432/wh'],
    ['redis://127.0.0.1:6379', 'redis://127.0.0.1:6379'],
  ])('masks the password of %s', (url, shown) => {
    expect(redactUrl(url)).toBe(shown);
  });

  it('reads the password as written, so it can be scrubbed from logs', () => {
    expect(passwordOf('postgres://u:pa/ss@h/db')).toBe('pa/ss');
    expect(passwordOf('postgres://u:pa%2Fss@h/db')).toBe('pa/ss');
    expect(passwordOf('postgres://u@h/db')).toBe('');
  });
});

describe('loadConfig errors', () => {
  it('names the missing token and how to fix it', () => {
    expect(errorOf({ SERVICE_API_BASE_URL: 'https://api.example.com' })).toBe(
      'SERVICE_API_TOKEN is not set (export it, point SERVICE_API_TOKEN_FILE at a file holding it, or use PUNCHLINE_CONFIG)',
    );
  });

  it('names the missing base URL when only the token is set', () => {
    expect(errorOf({ SERVICE_API_TOKEN: TOKEN })).toMatch(/^SERVICE_API_BASE_URL is not set/);
  });

  it.each([
    ['API_MAX_RPS', 'abc', /^API_MAX_RPS must be a whole number from 1 to 10000 \(got "abc"\)$/],
    ['API_MAX_RPS', '0', /^API_MAX_RPS must be a whole number/],
    ['API_MAX_CONCURRENCY', '2.5', /^API_MAX_CONCURRENCY must be a whole number/],
    ['API_TIMEOUT_MS', '-5', /^API_TIMEOUT_MS must be a whole number/],
    ['OPS_PORT', '70000', /^OPS_PORT must be a whole number from 0 to 65535/],
    ['API_MAX_ATTEMPTS', '1e3', /^API_MAX_ATTEMPTS must be a whole number/],
    ['WORKER_CONCURRENCY', 'four', /^WORKER_CONCURRENCY must be a whole number/],
  ])('rejects %s=%j', (name, value, message) => {
    expect(errorOf({ ...BASE, [name]: value })).toMatch(message);
  });

  it('rejects a time zone that is not IANA', () => {
    expect(errorOf({ ...BASE, API_TIMEZONE: 'Brasilia' })).toBe(
      'API_TIMEZONE must be an IANA time zone such as America/Sao_Paulo (got "Brasilia")',
    );
  });

  it('rejects bad URLs, schema names, prefixes, levels, booleans and cron patterns', () => {
    expect(errorOf({ ...BASE, SERVICE_API_BASE_URL: 'ftp://x' })).toMatch(
      /^SERVICE_API_BASE_URL must be a http or https URL/,
    );
    expect(errorOf({ DATABASE_URL: 'localhost:5432' })).toMatch(
      /^DATABASE_URL must be a postgres or postgresql URL/,
    );
    expect(errorOf({ REDIS_URL: 'http://x' })).toMatch(/^REDIS_URL must be a redis or rediss URL/);
    expect(errorOf({ WAREHOUSE_SCHEMA: 'Work-Force' })).toMatch(
      /^WAREHOUSE_SCHEMA must be a lower-case SQL identifier/,
    );
    expect(errorOf({ QUEUE_PREFIX: 'a b' })).toMatch(/^QUEUE_PREFIX must be/);
    expect(errorOf({ LOG_LEVEL: 'loud' })).toMatch(/^LOG_LEVEL must be one of/);
    expect(errorOf({ STORE_BINARIES: 'maybe' })).toMatch(/^STORE_BINARIES must be 1 or 0/);
    expect(errorOf({ SCHEDULE_PUNCHES: 'often' })).toMatch(/^SCHEDULE_PUNCHES must be a cron pattern/);
  });

  it.each([
    [
      'SCHEDULE_NIGHTLY',
      '99 * * * *',
      /^SCHEDULE_NIGHTLY must be a cron pattern such as "\*\/15 \* \* \* \*" \(Constraint error, got value 99 expected range 0-59\) \(got "99 \* \* \* \*"\)$/,
    ],
    [
      'SCHEDULE_PUNCHES',
      '0 0 31 2 *',
      /^SCHEDULE_PUNCHES must be a cron pattern .*Invalid explicit day of month/,
    ],
    ['SCHEDULE_DIRECTORY', '* * *', /^SCHEDULE_DIRECTORY must be a cron pattern .*expected 5 fields/],
    ['SCHEDULE_PUNCHES', '*/15 * * * MON-XYZ', /^SCHEDULE_PUNCHES must be a cron pattern/],
  ])('refuses %s=%j, a pattern that would never fire, naming the variable', (name, value, message) => {
    expect(errorOf({ ...BASE, [name]: value })).toMatch(message);
  });

  it('accepts cron patterns with five fields, or six with seconds', () => {
    const c = loadConfig({
      ...BASE,
      SCHEDULE_PUNCHES: '*/5 * * * *',
      SCHEDULE_NIGHTLY: '0 30 2 * * 1-5',
      SCHEDULE_DIRECTORY: '0 8-18 * * MON-FRI',
    });
    expect([c.schedules.punches, c.schedules.nightly, c.schedules.directory]).toEqual([
      '*/5 * * * *',
      '0 30 2 * * 1-5',
      '0 8-18 * * MON-FRI',
    ]);
  });

  it('reads the fault-healing knobs with their defaults', () => {
    const d = loadConfig(BASE);
    expect([
      d.apiMaxRetryAfterMs,
      d.apiTokenRecheckMs,
      d.warehouseWaitMs,
      d.warehouseRetryMaxMs,
      d.schedules.checkMs,
    ]).toEqual([300_000, 180_000, 120_000, 15_000, 30_000]);
    const c = loadConfig({
      ...BASE,
      API_MAX_RETRY_AFTER_MS: '2000',
      API_TOKEN_RECHECK_MS: '1500',
      SCHEDULE_CHECK_MS: '1000',
    });
    expect([c.apiMaxRetryAfterMs, c.apiTokenRecheckMs, c.schedules.checkMs]).toEqual([2000, 1500, 1000]);
    expect(errorOf({ ...BASE, API_TOKEN_RECHECK_MS: '10' })).toMatch(
      /^API_TOKEN_RECHECK_MS must be a whole number from 1000/,
    );
  });

  it('never echoes a password from a bad URL', () => {
    const message = errorOf({ DATABASE_URL: 'mysql://warehouse:hunter2pass@db:3306/x' });
    expect(message).not.toContain('hunter2pass');
    expect(message).toContain('mysql://warehouse:***@db:3306/x');
  });
});

describe('PUNCHLINE_CONFIG file', () => {
  it('loads several connections, with a literal token or one read from tokenEnv', () => {
    const path = configFile({
      connections: [
        { name: 'hq', baseUrl: 'https://a.example.com/', token: 'tok-hq-1234', timezone: 'America/Recife' },
        {
          name: 'branch_2',
          baseUrl: 'http://b.example.com',
          tokenEnv: 'BRANCH_TOKEN',
          rateLimit: { rps: 2 },
        },
      ],
    });
    const c = loadConfig({
      PUNCHLINE_CONFIG: path,
      BRANCH_TOKEN: ' tok-branch-5678 ',
      API_MAX_CONCURRENCY: '7',
    });
    expect(c.connections).toEqual([
      {
        name: 'hq',
        baseUrl: 'https://a.example.com',
        token: 'tok-hq-1234',
        timezone: 'America/Recife',
        rateLimit: { rps: 5, concurrency: 7 },
      },
      {
        name: 'branch_2',
        baseUrl: 'http://b.example.com',
        token: 'tok-branch-5678',
        timezone: 'America/Sao_Paulo',
        rateLimit: { rps: 2, concurrency: 7 },
      },
    ]);
  });

  it('takes precedence over SERVICE_API_BASE_URL / SERVICE_API_TOKEN', () => {
    const path = configFile({
      connections: [{ name: 'only', baseUrl: 'https://a.example.com', token: 'tok-only-1' }],
    });
    expect(loadConfig({ ...BASE, PUNCHLINE_CONFIG: path }).connections.map((c) => c.name)).toEqual(['only']);
  });

  it('says which connection lacks its tokenEnv variable', () => {
    const path = configFile({
      connections: [{ name: 'hq', baseUrl: 'https://a.example.com', tokenEnv: 'HQ_TOKEN' }],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: path })).toBe(
      `PUNCHLINE_CONFIG ${path}: connections.0 (hq) reads its token from HQ_TOKEN, which is not set (export it)`,
    );
  });

  it('rejects a connection with both token and tokenEnv, or neither', () => {
    const both = configFile({
      connections: [{ name: 'x', baseUrl: 'https://a.example.com', token: 't1234', tokenEnv: 'T' }],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: both })).toMatch(
      /connections\.0: give exactly one of "token", "tokenEnv" or "tokenFile"/,
    );
    const neither = configFile({ connections: [{ name: 'x', baseUrl: 'https://a.example.com' }] });
    expect(errorOf({ PUNCHLINE_CONFIG: neither })).toMatch(
      /give exactly one of "token", "tokenEnv" or "tokenFile"/,
    );
  });

  it('rejects duplicate names, unknown keys, bad zones, an empty list, a missing file', () => {
    const dup = configFile({
      connections: [
        { name: 'a', baseUrl: 'https://a.example.com', token: 't1234' },
        { name: 'a', baseUrl: 'https://b.example.com', token: 't5678' },
      ],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: dup })).toMatch(/connection name "a" is used twice/);
    const extra = configFile({
      connections: [{ name: 'a', baseUrl: 'https://a.example.com', token: 't1234', rps: 3 }],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: extra })).toMatch(/^PUNCHLINE_CONFIG .*connections\.0/);
    const zone = configFile({
      connections: [{ name: 'a', baseUrl: 'https://a.example.com', token: 't1234', timezone: 'BRT' }],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: zone })).toMatch(
      /connections\.0\.timezone: timezone must be an IANA time zone/,
    );
    expect(errorOf({ PUNCHLINE_CONFIG: configFile({ connections: [] }) })).toMatch(/at least one connection/);
    expect(errorOf({ PUNCHLINE_CONFIG: join(dir, 'missing.json') })).toMatch(/missing\.json: file not found/);
  });

  it('does not quote the file text (which may hold a token) when the JSON is broken', () => {
    const path = configFile('{"connections":[{"name":"a","token":tok-broken-secret}]}');
    const message = errorOf({ PUNCHLINE_CONFIG: path });
    expect(message).toMatch(/not valid JSON/);
    expect(message).not.toContain('tok-broken');
  });
});

describe('the parsed configuration', () => {
  it('is frozen all the way down', () => {
    const c = loadConfig(BASE);
    expect(Object.isFrozen(c)).toBe(true);
    expect(Object.isFrozen(c.connections)).toBe(true);
    expect(Object.isFrozen(c.connections[0])).toBe(true);
    expect(Object.isFrozen(c.connections[0]!.rateLimit)).toBe(true);
    expect(Object.isFrozen(c.schedules)).toBe(true);
    expect(() => {
      (c as { opsPort: number }).opsPort = 1;
    }).toThrow(TypeError);
  });

  it('selects all connections or one by name', () => {
    const path = configFile({
      connections: [
        { name: 'a', baseUrl: 'https://a.example.com', token: 't1234' },
        { name: 'b', baseUrl: 'https://b.example.com', token: 't5678' },
      ],
    });
    const c = loadConfig({ PUNCHLINE_CONFIG: path });
    expect(selectConnections(c).map((x) => x.name)).toEqual(['a', 'b']);
    expect(selectConnections(c, 'b').map((x) => x.name)).toEqual(['b']);
    expect(() => selectConnections(c, 'z')).toThrow('unknown connection "z" (configured: a, b)');
    expect(() => selectConnections(loadConfig({}))).toThrow(/no API connection configured/);
  });
});

/** Writes `content` to a fresh file of the test directory and returns its path. */
function secretFile(content: string): string {
  const path = join(dir, `secret-${files++}`);
  writeFileSync(path, content);
  return path;
}

describe('secrets from files (<NAME>_FILE)', () => {
  it('reads SERVICE_API_TOKEN_FILE, DATABASE_URL_FILE, OPS_DASHBOARD_TOKEN_FILE and NOTIFY_WEBHOOK_URL_FILE, trimming the newline', () => {
    const c = loadConfig({
      SERVICE_API_BASE_URL: 'https://api.example.com',
      SERVICE_API_TOKEN_FILE: secretFile(`${TOKEN}\n`),
      DATABASE_URL_FILE: secretFile('postgres://wh:pg-secret-pw@db:5432/wh\n'),
      OPS_DASHBOARD_TOKEN_FILE: secretFile('dash-0123456789abcdef\n'),
      NOTIFY_WEBHOOK_URL_FILE: secretFile('https://hooks.example.com/services/T0/B0/xyz\n'),
    });
    expect(c.connections[0]!.token).toBe(TOKEN);
    expect(c.databaseUrl).toBe('postgres://wh:pg-secret-pw@db:5432/wh');
    expect(c.dashboardCredential).toEqual({ user: 'operator', token: 'dash-0123456789abcdef' });
    expect(c.notifyWebhookUrl).toBe('https://hooks.example.com/services/T0/B0/xyz');
  });

  it.each(['SERVICE_API_TOKEN', 'DATABASE_URL', 'OPS_DASHBOARD_TOKEN', 'NOTIFY_WEBHOOK_URL'])(
    'refuses %s and its _FILE together, in one line',
    (name) => {
      expect(errorOf({ ...BASE, [name]: 'x', [`${name}_FILE`]: secretFile('y') })).toBe(
        `set ${name} or ${name}_FILE, not both`,
      );
    },
  );

  it('names the file that is missing or empty, and what it must hold', () => {
    const missing = join(dir, 'no-such-secret');
    expect(errorOf({ ...BASE, SERVICE_API_TOKEN: undefined, SERVICE_API_TOKEN_FILE: missing })).toBe(
      `SERVICE_API_TOKEN_FILE ${missing}: file not found (point it at a file that holds the value of SERVICE_API_TOKEN)`,
    );
    const empty = secretFile('\n');
    expect(errorOf({ DATABASE_URL_FILE: empty })).toBe(
      `DATABASE_URL_FILE ${empty}: the file is empty (it must hold the value of DATABASE_URL)`,
    );
    expect(errorOf({ DATABASE_URL_FILE: dir })).toMatch(/^DATABASE_URL_FILE .*: is a directory/);
  });

  it('validates a value read from a file without echoing it', () => {
    const path = secretFile('mysql://wh:file-secret-pw@db/x');
    const message = errorOf({ DATABASE_URL_FILE: path });
    expect(message).toBe(
      `DATABASE_URL must be a postgres or postgresql URL (read from DATABASE_URL_FILE ${path})`,
    );
    expect(message).not.toContain('file-secret-pw');
  });

  it('reads a connection token from "tokenFile" in PUNCHLINE_CONFIG', () => {
    const token = secretFile('tok-from-file-1234\n');
    const path = configFile({
      connections: [{ name: 'hq', baseUrl: 'https://a.example.com', tokenFile: token }],
    });
    expect(loadConfig({ PUNCHLINE_CONFIG: path }).connections[0]!.token).toBe('tok-from-file-1234');
    const gone = configFile({
      connections: [{ name: 'hq', baseUrl: 'https://a.example.com', tokenFile: join(dir, 'gone') }],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: gone })).toMatch(
      /connections\.0 \(hq\) tokenFile .*gone: file not found/,
    );
  });
});

describe('ops and notification settings', () => {
  it('binds the ops server where OPS_HOST says', () => {
    expect(loadConfig({ OPS_HOST: '0.0.0.0' }).opsHost).toBe('0.0.0.0');
    expect(loadConfig({ OPS_HOST: '::1' }).opsHost).toBe('::1');
    expect(errorOf({ OPS_HOST: 'two words' })).toMatch(/^OPS_HOST must be an address or host name/);
  });

  it('takes the dashboard credential with a user name, and refuses a short token without echoing it', () => {
    const c = loadConfig({ OPS_DASHBOARD_TOKEN: 'a-long-enough-token!', OPS_DASHBOARD_USER: 'ops' });
    expect(c.dashboardCredential).toEqual({ user: 'ops', token: 'a-long-enough-token!' });
    const message = errorOf({ OPS_DASHBOARD_TOKEN: 'short-tok' });
    expect(message).toMatch(/^OPS_DASHBOARD_TOKEN must be at least 16 characters/);
    expect(message).not.toContain('short-tok');
  });

  it('refuses a webhook URL that is not http(s), without echoing it', () => {
    const message = errorOf({ NOTIFY_WEBHOOK_URL: 'hooks.example.com/secret-path-123' });
    expect(message).toBe('NOTIFY_WEBHOOK_URL must be a http or https URL');
  });

  it('reads the retention of sync_runs, rejected_records and quality_checks in days, 0 keeping it forever', () => {
    expect(loadConfig({ SYNC_RUNS_RETENTION_DAYS: '14' }).retentionDays).toEqual({
      sync_runs: 14,
      rejected_records: 90,
      quality_checks: 30,
    });
    expect(
      loadConfig({ SYNC_RUNS_RETENTION_DAYS: '0', QUALITY_CHECKS_RETENTION_DAYS: '7' }).retentionDays,
    ).toEqual({ sync_runs: 0, rejected_records: 90, quality_checks: 7 });
    expect(loadConfig({ REJECTED_RECORDS_RETENTION_DAYS: '30' }).retentionDays).toEqual({
      sync_runs: 90,
      rejected_records: 30,
      quality_checks: 30,
    });
    expect(errorOf({ QUALITY_CHECKS_RETENTION_DAYS: '1.5' })).toMatch(
      /^QUALITY_CHECKS_RETENTION_DAYS must be a whole number from 0 to 36500/,
    );
    expect(errorOf({ SYNC_RUNS_RETENTION_DAYS: '-1' })).toMatch(
      /^SYNC_RUNS_RETENTION_DAYS must be a whole number from 0 to 36500/,
    );
  });

  it('lists every secret the logger must scrub, the URLs passwords included', () => {
    const c = loadConfig({
      ...BASE,
      DATABASE_URL: 'postgres://wh:pg-pass-1@db/wh',
      REDIS_URL: 'redis://:redis-pass-2@cache:6379',
      OPS_DASHBOARD_TOKEN: 'dash-0123456789abcdef',
      NOTIFY_WEBHOOK_URL: 'https://hooks.example.com/x/y',
    });
    expect(configSecrets(c)).toEqual(
      expect.arrayContaining([
        TOKEN,
        'pg-pass-1',
        'redis-pass-2',
        'dash-0123456789abcdef',
        'https://hooks.example.com/x/y',
      ]),
    );
    expect(configSecrets(loadConfig({}))).toEqual([]);
  });
});

describe('PSEUDONYM_KEY and PSEUDONYM_KEY_FILE', () => {
  const KEY = 'pk-0123456789abcdef0123456789abcdef';

  it('is undefined when neither is set', () => {
    expect(loadConfig({}).pseudonymKey).toBeUndefined();
  });

  it('takes the key from PSEUDONYM_KEY, or from the file PSEUDONYM_KEY_FILE names without its newline', () => {
    expect(loadConfig({ PSEUDONYM_KEY: KEY }).pseudonymKey).toBe(KEY);
    expect(loadConfig({ PSEUDONYM_KEY_FILE: configFile(`${KEY}\n`) }).pseudonymKey).toBe(KEY);
  });

  it('refuses both at once, in one line', () => {
    expect(errorOf({ PSEUDONYM_KEY: KEY, PSEUDONYM_KEY_FILE: configFile(KEY) })).toBe(
      'set PSEUDONYM_KEY or PSEUDONYM_KEY_FILE, not both',
    );
  });

  it('refuses a long key with too little entropy, in one line and without quoting it', () => {
    for (const weak of [
      'a'.repeat(40),
      'passwordpasswordpasswordpassword',
      'abababababababababababababababab',
    ]) {
      const message = errorOf({ PSEUDONYM_KEY: weak });
      expect(message).toBe(
        'PSEUDONYM_KEY has too little entropy to be a key (a word or a pattern, not random bytes; make one with: openssl rand -base64 32)',
      );
      expect(message).not.toContain(weak);
    }
    expect(entropyBits('a'.repeat(40))).toBe(0);
    expect(entropyBits(randomBytes(32).toString('base64'))).toBeGreaterThan(150);
    expect(loadConfig({ PSEUDONYM_KEY: randomBytes(24).toString('hex') }).pseudonymKey).toHaveLength(48);
  });

  it('refuses a key shorter than 32 characters without quoting it', () => {
    const short = 'short-secret-key';
    const message = errorOf({ PSEUDONYM_KEY: short });
    expect(message).toBe(
      'PSEUDONYM_KEY is shorter than 32 characters (make one with: openssl rand -base64 32)',
    );
    const path = configFile(`${short}\n`);
    const fromFile = errorOf({ PSEUDONYM_KEY_FILE: path });
    expect(fromFile).toBe(
      `PSEUDONYM_KEY is shorter than 32 characters (make one with: openssl rand -base64 32) (read from PSEUDONYM_KEY_FILE ${path})`,
    );
    expect(fromFile).not.toContain(short);
  });

  it('names a missing or empty key file', () => {
    expect(errorOf({ PSEUDONYM_KEY_FILE: join(dir, 'nope.key') })).toBe(
      `PSEUDONYM_KEY_FILE ${join(dir, 'nope.key')}: file not found (point it at a file that holds the value of PSEUDONYM_KEY)`,
    );
    const empty = configFile('\n');
    expect(errorOf({ PSEUDONYM_KEY_FILE: empty })).toBe(
      `PSEUDONYM_KEY_FILE ${empty}: the file is empty (it must hold the value of PSEUDONYM_KEY)`,
    );
  });
});

describe('COMPANY_TIMEZONES', () => {
  it("gives the companies it names their zone, over the connection's", () => {
    const c = loadConfig({
      ...BASE,
      COMPANY_TIMEZONES: ' 11222333000262=America/Manaus, 11.222.333/0003-43=America/Rio_Branco ',
    });
    const conn = c.connections[0]!;
    expect(conn.companyTimezones).toEqual({
      '11222333000262': 'America/Manaus',
      '11222333000343': 'America/Rio_Branco',
    });
    expect(companyTimezone(conn, '11222333000262')).toBe('America/Manaus');
    expect(companyTimezone(conn, '11222333000181')).toBe('America/Sao_Paulo');
    expect(companyTimezone(conn, undefined)).toBe('America/Sao_Paulo');
    expect(c.companyTimezones).toEqual(conn.companyTimezones);
    expect(loadConfig(BASE).connections[0]!.companyTimezones).toBeUndefined();
  });

  it('refuses a pair without "=", a short CNPJ, an unknown zone and a company named twice, naming the pair', () => {
    expect(errorOf({ ...BASE, COMPANY_TIMEZONES: '11222333000262' })).toBe(
      'COMPANY_TIMEZONES: "11222333000262" is not a CNPJ=Zone pair (write CNPJ=Zone pairs separated by commas, e.g. 11222333000262=America/Manaus)',
    );
    expect(errorOf({ ...BASE, COMPANY_TIMEZONES: '1122233300026=America/Manaus' })).toMatch(
      /^COMPANY_TIMEZONES: "1122233300026=America\/Manaus" does not start with a CNPJ of 14 digits/,
    );
    expect(errorOf({ ...BASE, COMPANY_TIMEZONES: '11222333000262=America/Manaos' })).toMatch(
      /^COMPANY_TIMEZONES: "11222333000262=America\/Manaos" names no IANA time zone \("America\/Manaos"\)/,
    );
    expect(
      errorOf({ ...BASE, COMPANY_TIMEZONES: '11222333000262=America/Manaus,11222333000262=America/Cuiaba' }),
    ).toMatch(
      /^COMPANY_TIMEZONES: "11222333000262=America\/Cuiaba" names company 11222333000262 a second time/,
    );
  });

  it("lets a PUNCHLINE_CONFIG connection name its own companies' zones, over COMPANY_TIMEZONES", () => {
    const path = configFile({
      connections: [
        {
          name: 'north',
          baseUrl: 'https://a.example.com',
          token: 't1234',
          companyTimezones: { '11222333000262': 'America/Cuiaba' },
        },
        { name: 'south', baseUrl: 'https://a.example.com', token: 't5678' },
      ],
    });
    const c = loadConfig({
      PUNCHLINE_CONFIG: path,
      COMPANY_TIMEZONES: '11222333000262=America/Manaus,11222333000343=America/Rio_Branco',
    });
    expect(c.connections[0]!.companyTimezones).toEqual({
      '11222333000262': 'America/Cuiaba',
      '11222333000343': 'America/Rio_Branco',
    });
    expect(c.connections[1]!.companyTimezones).toEqual({
      '11222333000262': 'America/Manaus',
      '11222333000343': 'America/Rio_Branco',
    });
    const bad = configFile({
      connections: [
        {
          name: 'x',
          baseUrl: 'https://a.example.com',
          token: 't1234',
          companyTimezones: { '11222333000262': 'Mars/Olympus' },
        },
      ],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: bad })).toMatch(
      /connections\.0\.companyTimezones\.11222333000262: companyTimezones must be an IANA time zone/,
    );
    const key = configFile({
      connections: [
        {
          name: 'x',
          baseUrl: 'https://a.example.com',
          token: 't1234',
          companyTimezones: { '1122': 'America/Manaus' },
        },
      ],
    });
    expect(errorOf({ PUNCHLINE_CONFIG: key })).toMatch(/companyTimezones keys must be CNPJs of 14 digits/);
  });
});

describe('SYNC_LOOKBACK_DAYS', () => {
  it('defaults to 35 days and takes 7 to 366', () => {
    expect(loadConfig({}).syncLookbackDays).toBe(35);
    expect(loadConfig({ SYNC_LOOKBACK_DAYS: '60' }).syncLookbackDays).toBe(60);
    expect(errorOf({ SYNC_LOOKBACK_DAYS: '3' })).toBe(
      'SYNC_LOOKBACK_DAYS must be a whole number from 7 to 366 (got "3")',
    );
  });
});

describe('tracing (OTEL_EXPORTER_OTLP_ENDPOINT)', () => {
  it('is off unless the endpoint is set, whatever the other OTEL variables say', () => {
    expect(loadConfig({}).tracing).toBeUndefined();
    expect(
      loadConfig({ OTEL_EXPORTER_OTLP_HEADERS: 'x=1', OTEL_SERVICE_NAME: 'etl' }).tracing,
    ).toBeUndefined();
  });

  it('reads the endpoint without its trailing slash, the headers percent-decoded, and the service name', () => {
    const c = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318/',
      OTEL_EXPORTER_OTLP_HEADERS: 'X-Api-Key=abc%3D%3D, x-team = data ,',
      OTEL_SERVICE_NAME: 'punchline-prod',
    });
    expect(c.tracing).toEqual({
      endpoint: 'https://collector.example:4318',
      headers: { 'x-api-key': 'abc==', 'x-team': 'data' },
      serviceName: 'punchline-prod',
    });
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318' }).tracing).toEqual({
      endpoint: 'http://localhost:4318',
      headers: {},
      serviceName: 'punchline',
    });
  });

  it('refuses a bad endpoint, header or service name in one line that never shows a header value', () => {
    expect(errorOf({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318' })).toMatch(
      /^OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    const pair = errorOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'good=1,top-secret-value',
    });
    expect(pair).toBe(
      'OTEL_EXPORTER_OTLP_HEADERS: pair 2 is not key=value with a header name as key (e.g. api-key=secret,x-team=data)',
    );
    const encoding = errorOf({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://localhost:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=%E0%A4%A-secret',
    });
    expect(encoding).toMatch(/pair 1 \(api-key\) is not valid percent-encoding/);
    expect(encoding).not.toContain('secret');
    expect(errorOf({ OTEL_SERVICE_NAME: 'two words' })).toMatch(/^OTEL_SERVICE_NAME must be/);
  });

  it('keeps the header values and the endpoint password among the secrets never logged', () => {
    const c = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://user:collector-pass@collector.example',
      OTEL_EXPORTER_OTLP_HEADERS: 'api-key=header-secret',
    });
    expect(configSecrets(c)).toEqual(expect.arrayContaining(['header-secret', 'collector-pass']));
  });
});
