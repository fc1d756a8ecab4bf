/**
 * `punchline demo` (docs/operations.md "First run"), zero configuration: starts the emulator (or uses
 * `--emulator-url`), creates and migrates the warehouse, backfills 90 days through `punchline backfill`,
 * then runs the worker and its dashboard until Ctrl-C. SERVICE_API_* are ignored; DATABASE_URL,
 * REDIS_URL, WAREHOUSE_SCHEMA, QUEUE_PREFIX and OPS_PORT are honoured.
 */
import { relative } from 'node:path';
import pg from 'pg';
import { EXIT, UsageError, type CommandContext } from './context.js';
import { registerSecret } from '../logger.js';
import { todayIn } from '../util/time.js';
import { migrate } from '../migrations/migrate.js';
import { startEmulator, type RunningEmulator } from '../emulator/index.js';
import { ensureDatabase } from '../demo/database-bootstrap.js';
import { isPortFree } from '../demo/port-check.js';
import { assertRedisReachable, ServiceUnavailableError } from '../probes/services.js';
import { warehouseDb } from '../warehouse/db.js';
import { formatDemoBanner } from '../demo/banner.js';
import { checkOpsBind, opsBaseUrl } from '../http/server.js';
import {
  DEMO_CONNECTION,
  DEMO_EMULATOR_PORT,
  DEMO_SEED,
  DEMO_TIMEZONE,
  DemoError,
  demoConfig,
  demoRange,
  fetchEmulatorHeadquarters,
  parseDays,
  parseEmulatorUrl,
} from '../demo/setup.js';

/** Options of `punchline demo`. */
export type DemoOptions = Partial<Record<'days' | 'emulatorUrl', string>>;

/** Checks Redis and Postgres together, so one message names every service to start. */
async function checkServices(redisUrl: string, databaseUrl: string): Promise<boolean> {
  const [redis, postgres] = await Promise.allSettled([
    assertRedisReachable(redisUrl),
    ensureDatabase(databaseUrl),
  ]);
  const problems = [postgres, redis].flatMap((r) => (r.status === 'rejected' ? [r.reason as Error] : []));
  if (problems.length === 1) throw problems[0];
  if (problems.length > 1) {
    throw new ServiceUnavailableError(
      'postgres',
      `the demo needs Postgres and Redis running locally. ${problems.map((p) => p.message).join('. ')}`,
    );
  }
  return postgres.status === 'fulfilled' && postgres.value;
}

/** Refuses to mix demo rows into a warehouse schema that holds real data. */
async function assertSchemaIsDemo(databaseUrl: string, schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  client.on('error', () => undefined); // a dropped connection fails the query below instead of the process
  await client.connect();
  try {
    const real = await warehouseDb(client, schema)
      .selectFrom('sync_runs')
      .select('connection')
      .where('connection', 'is distinct from', DEMO_CONNECTION)
      .limit(1)
      .executeTakeFirst();
    if (real) {
      throw new DemoError(
        `WAREHOUSE_SCHEMA ${schema} already holds data synced from connection "${real.connection}"; ` +
          'run the demo in a schema of its own, e.g. WAREHOUSE_SCHEMA=demo QUEUE_PREFIX=demo npm run demo',
        'demo_schema_in_use',
      );
    }
  } finally {
    await client.end();
  }
}

/** Resolves once `url` answers HTTP at all, or rejects when `running` settles first or time runs out. */
async function waitForHttp(url: string, running: Promise<unknown>, timeoutMs = 60_000): Promise<void> {
  let settled = false;
  const settle = () => (settled = true);
  running.then(settle, settle);
  const deadline = Date.now() + timeoutMs;
  while (!settled && Date.now() < deadline) {
    try {
      await fetch(url, { signal: AbortSignal.timeout(2000) });
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  await Promise.race([running, Promise.resolve()]);
  if (!settled) throw new DemoError(`the worker's ops server did not come up at ${url}`);
}

/** How to call the CLI in the banner: the way this process was started, where possible. */
function cliInvocation(): string {
  const script = process.argv[1] ?? '';
  if (!script.endsWith('bin/punchline.js')) return 'punchline';
  const rel = relative(process.cwd(), script);
  return rel.startsWith('..') ? 'punchline' : `node ${rel}`;
}

/** Runs `punchline demo` until a signal. */
export async function demoCommand(ctx: CommandContext, opts: DemoOptions): Promise<number> {
  let days: number;
  let emulatorUrl: string | undefined;
  try {
    days = parseDays(opts.days);
    emulatorUrl = parseEmulatorUrl(opts.emulatorUrl);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { config, out } = ctx;
  const say = (line: string) => out.write(`${line}\n`);
  // The demo's own chatter is the progress bar and the banner; job logs only from warn up.
  const logger = config.logLevel === 'info' ? ctx.logger.child({}, { level: 'warn' }) : ctx.logger;
  const databaseUrl = config.databaseUrl;

  checkOpsBind(config.opsHost, config.dashboardCredential !== undefined, config.opsAllowNoToken);
  say('punchline demo: checking Postgres and Redis...');
  if (await checkServices(config.redisUrl, databaseUrl))
    say(`  created database ${new URL(databaseUrl).pathname.slice(1)}`);
  if (!(await isPortFree(config.opsPort))) {
    throw new DemoError(
      `OPS_PORT ${config.opsPort} is in use (is another punchline worker or demo running? stop it or set OPS_PORT to a free port)`,
      'ops_port_in_use',
    );
  }

  let emulator: RunningEmulator | undefined;
  try {
    let api: { url: string; token: string; companies: number; today: string };
    if (emulatorUrl) {
      say(`punchline demo: using the emulator at ${emulatorUrl}`);
      const hq = await fetchEmulatorHeadquarters(emulatorUrl);
      api = { url: emulatorUrl, token: hq.token, companies: hq.companies, today: todayIn(DEMO_TIMEZONE) };
    } else {
      const port = (await isPortFree(DEMO_EMULATOR_PORT, '127.0.0.1')) ? DEMO_EMULATOR_PORT : 0;
      emulator = await startEmulator({ port, host: '127.0.0.1', scale: 'demo', seed: DEMO_SEED });
      api = {
        url: emulator.url,
        token: emulator.headquartersToken,
        companies: emulator.companies.length,
        today: emulator.today,
      };
      say(
        `punchline demo: emulator running at ${emulator.url} (${api.companies} companies, seed "${DEMO_SEED}")`,
      );
    }
    registerSecret(api.token);
    const demoCtx: CommandContext = { ...ctx, config: demoConfig(config, api, databaseUrl), logger };

    say(`punchline demo: migrating schema ${config.warehouseSchema}...`);
    const m = await migrate(databaseUrl, config.warehouseSchema, logger);
    say(`  ${m.applied.length} migrations applied, ${m.alreadyApplied} already there`);
    await assertSchemaIsDemo(databaseUrl, config.warehouseSchema);

    const range = demoRange(api.today, days);
    say(`punchline demo: backfilling ${range.from} .. ${range.to} (${days} days, every resource)...`);
    const { backfillCommand } = await import('./backfill.js');
    const backfilled = await backfillCommand(demoCtx, { from: range.from, to: range.to, progress: true });
    if (ctx.signal.aborted) return EXIT.ok;
    if (backfilled !== EXIT.ok) {
      say('punchline demo: some jobs failed; the worker starts anyway, see the failed tab of the dashboard');
    }

    say('punchline demo: starting the worker with its schedules and dashboard...');
    const { workerCommand } = await import('./worker.js');
    const running = workerCommand(demoCtx, { schedules: true, ops: true });
    const opsUrl = opsBaseUrl(config.opsHost, config.opsPort);
    await waitForHttp(`${opsUrl}/healthz`, running);
    const banner = {
      opsUrl,
      emulatorUrl: api.url,
      companies: api.companies,
      databaseUrl,
      cli: cliInvocation(),
    };
    out.write(formatDemoBanner({ ...banner, schema: config.warehouseSchema }));
    const code = await running;
    say('punchline demo: stopped');
    return code;
  } finally {
    await emulator?.close();
  }
}
