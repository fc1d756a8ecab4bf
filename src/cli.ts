/**
 * The `punchline` command line (README.md, docs/operations.md): one entry point for every command.
 * Arguments and configuration are checked before any work; a problem is one line on stderr, and the
 * exit code says its class (docs/operations.md "Exit codes").
 */
import { Command, CommanderError, Option } from 'commander';
import { config as loadDotenv } from 'dotenv';
import { ConfigError, configSecrets, loadConfig, type Config } from './config.js';
import { createLogger, registerSecret } from './logger.js';
import { EXIT, type CommandContext } from './commands/context.js';
import { exitCodeOf } from './commands/exit-codes.js';
import { PUSH_KINDS } from './push/kind-names.js';
import { QUIRK_NAMES, quirkFlag } from './emulator/quirks.js';
import { packageVersion } from './util/package-root.js';

function fail(message: string, code: number): never {
  process.stderr.write(`punchline: ${message}\n`);
  process.exit(code);
}

async function execute(action: (ctx: CommandContext) => Promise<number>): Promise<void> {
  const before = new Set(Object.keys(process.env));
  const dotenv = loadDotenv({ quiet: true }).parsed ?? {};
  const fromDotenv = new Set(Object.keys(dotenv).filter((k) => !before.has(k)));
  let config: Config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (err instanceof ConfigError) fail(err.message, EXIT.usage);
    throw err;
  }
  for (const secret of configSecrets(config)) registerSecret(secret);
  const controller = new AbortController();
  for (const sig of ['SIGINT', 'SIGTERM'] as const) {
    process.once(sig, () => controller.abort(new Error(`received ${sig}`)));
  }
  const logger = createLogger({ level: config.logLevel });
  // docs/operations.md "Tracing": only with OTEL_EXPORTER_OTLP_ENDPOINT is anything of OpenTelemetry loaded.
  const tracing = config.tracing
    ? await (await import('./telemetry/tracing-sdk.js')).startTracing(config.tracing, { logger })
    : undefined;
  try {
    process.exitCode = await action({
      config,
      logger,
      out: process.stdout,
      signal: controller.signal,
      fromDotenv,
    });
  } catch (err) {
    const e = err as Error & { code?: string };
    // A bad argument or setting is said as it is; anything else with its code, for searching the docs.
    const plain = e.code === 'usage' || e.code === 'config_invalid';
    if (!plain) logger.debug({ err }, 'command failed');
    await tracing?.shutdown();
    const message = plain || !e.code || e.message.includes(e.code) ? e.message : `${e.message} [${e.code}]`;
    fail(message, exitCodeOf(err));
  }
  await tracing?.shutdown();
}

// Every command: config, check, migrate, backfill, push, worker, status, verify, marts rebuild, forget, pseudonyms,
// emulator, demo.
const program = new Command('punchline')
  .description('Keeps a Postgres warehouse in step with the Customer API v2')
  .version(packageVersion(), '-V, --version', 'print the version of punchline')
  .showHelpAfterError('(run punchline --help for usage)')
  .exitOverride();

program
  .command('config')
  .description('print the effective configuration, secrets masked, and where each value came from')
  .option('--json', 'machine-readable output', false)
  .action((opts) => execute(async (ctx) => (await import('./commands/config.js')).configCommand(ctx, opts)));

program
  .command('check')
  .description(
    'check each connection (Postgres, Redis, every API connection): exit 0 all answer, 2 one refuses, 3 one does not answer',
  )
  .option('--json', 'machine-readable output', false)
  .action((opts) => execute(async (ctx) => (await import('./commands/check.js')).checkCommand(ctx, opts)));

program
  .command('migrate')
  .description('apply pending sql/ migrations to DATABASE_URL (idempotent, transactional)')
  .option('--status', 'list applied and pending migrations, apply nothing', false)
  .option('--json', 'with --status: machine-readable output', false)
  .action((opts) =>
    execute(async (ctx) => (await import('./commands/migrate.js')).migrateCommand(ctx, opts)),
  );

program
  .command('backfill')
  .description('sync every window of a date range, showing progress; exits 0 only when all succeeded')
  .requiredOption('--from <date>', 'first day, YYYY-MM-DD')
  .requiredOption('--to <date>', 'last day, YYYY-MM-DD')
  .option(
    '--resources <list>',
    'comma-separated resources (default: all; one that needs an opt-in setting only with it on, docs/operations.md)',
  )
  .option('--company <cnpj>', 'only this company of the group (CNPJ digits)')
  .option('--connection <name>', 'only this connection of PUNCHLINE_CONFIG')
  .option('--force', 're-sync windows already recorded as done', false)
  .option('--no-progress', 'plain progress lines even on a TTY')
  .option(
    '--dry-run',
    'check the warehouse and connections, print the jobs, windows and API requests it would make; queue and write nothing',
    false,
  )
  .option('--json', 'print the summary (or the dry run) as JSON; progress goes to stderr', false)
  .action((opts) =>
    execute(async (ctx) => (await import('./commands/backfill.js')).backfillCommand(ctx, opts)),
  );

program
  .command('push')
  .description(
    'write the rows of a CSV or JSONL file through the API: a plan by default, --apply writes (docs/push.md)',
  )
  .argument('<kind>', PUSH_KINDS.join(' | '))
  .option('--file <path>', 'input rows: a .csv (";" or "," separated) or .jsonl file (required)')
  .option('--apply', 'write; without it nothing is written and the plan is shown', false)
  .option('--report <path>', "write every row's outcome to this .csv or .json file")
  .option(
    '--files-dir <dir>',
    "folder that attachment and photo paths are read from (default: the input file's folder); nothing outside it is read",
  )
  .option(
    '--allow-hidden',
    'also read files and folders whose names start with "." (refused by default: .ssh, .env)',
    false,
  )
  .option('--connection <name>', 'the connection of PUNCHLINE_CONFIG to write with (required when several)')
  .option('--no-progress', 'plain progress lines even on a TTY')
  .action((kind: string, opts) =>
    execute(async (ctx) => (await import('./commands/push.js')).pushCommand(ctx, kind, opts)),
  );

program
  .command('worker')
  .description('process jobs, register schedules, serve the dashboard, /metrics, /livez and /readyz')
  .option('--no-schedules', 'do not register the incremental schedules')
  .option('--no-ops', 'do not serve the ops HTTP port')
  .action((opts) => execute(async (ctx) => (await import('./commands/worker.js')).workerCommand(ctx, opts)));

program
  .command('status')
  .description(
    'queue counts, failing jobs and freshness per company and resource; --check exits 1 unless all is well',
  )
  .option('--json', 'machine-readable output, every company and resource', false)
  .option('--stale-after <minutes>', 'flag a resource older than this (default: per resource)')
  .option(
    '--check',
    'exit 1 when data is stale, a job failed or a connection is paused (for cron and probes)',
    false,
  )
  .option('--all', 'one line per company and resource, however many', false)
  .action((opts) => execute(async (ctx) => (await import('./commands/status.js')).statusCommand(ctx, opts)));

program
  .command('verify')
  .description(
    'run the reconciliation checks in the warehouse now; exits 1 when one fails (docs/warehouse.md)',
  )
  .option('--from <date>', 'first day checked, YYYY-MM-DD (default: the first synced day)')
  .option('--to <date>', 'last day checked, YYYY-MM-DD (default: the last synced day)')
  .option('--company <cnpj>', 'only this company (CNPJ digits)')
  .option('--json', 'every row written, machine-readable', false)
  .action((opts) => execute(async (ctx) => (await import('./commands/verify.js')).verifyCommand(ctx, opts)));

program
  .command('marts')
  .description('the analyst marts')
  .command('rebuild')
  .description("rebuild the marts from the warehouse's own tables (no API call), with a progress bar")
  .option('--company <cnpj>', 'only this company')
  .option('--from <date>', 'first day to rebuild (default: the first synced day)')
  .option('--to <date>', 'last day to rebuild (default: the last synced day)')
  .option('--no-progress', 'plain lines instead of a progress bar')
  .action((opts) =>
    execute(async (ctx) => (await import('./commands/marts.js')).martsRebuildCommand(ctx, opts)),
  );

program
  .command('forget')
  .description(
    "erase a person's personal fields from the warehouse and keep them erased (LGPD; docs/privacy.md)",
  )
  .option('--cpf <cpf>', 'CPF of the person (11 digits, punctuation allowed)')
  .option('--company <cnpj>', 'only in this company (default: every company the person appears in)')
  .option('--by <who>', 'who asks, recorded in the erasure register (default: user@host)')
  .option('--note <text>', 'note recorded with the erasure, e.g. the ticket of the request')
  .option('--lift', 'lift the standing erasure instead: later syncs store the person again', false)
  .option('--dry-run', 'count what it would erase (rows per company, values in Redis); change nothing', false)
  .action((opts) => execute(async (ctx) => (await import('./commands/forget.js')).forgetCommand(ctx, opts)));

program
  .command('pseudonyms')
  .description('give every CPF its pseudonym under PSEUDONYM_KEY (after a key rotation: all at once)')
  .action(() => execute(async (ctx) => (await import('./commands/pseudonyms.js')).pseudonymsCommand(ctx)));

program
  .command('emulator')
  .description('run the Customer API v2 emulator')
  .option('--port <port>', 'port to listen on', '4010')
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--seed <seed>', 'data seed', 'punchline')
  .addOption(new Option('--scale <scale>', 'small | demo | large | number of collaborators').default('demo'))
  .option('--from <date>', 'first day of generated history (default: two years before --today)')
  .option('--today <date>', "pin the emulator's clock to this date, for reproducible runs")
  .option(
    '--faults <spec>',
    'fault injection, e.g. "error403=0.05,error500=0.05,drop=0.05,slow=0.1:2000,rps=20"',
  )
  .option('--strict', 'reject exactly-31-day spans and use the stricter readings of spec gaps', false)
  .option('--latency <ms>', 'fixed delay added to every API request, in milliseconds')
  .option(
    '--quirks <list>',
    `data quirks of real sources: all, none, or some of ${QUIRK_NAMES.map(quirkFlag).join(',')} (docs/emulator.md)`,
  )
  .option('--labour-law', 'scripted labour-law cases on known days of every month (docs/emulator.md)', false)
  .addHelpText(
    'after',
    '\nOne-off faults and tokens at run time (admin routes, no token needed):\n' +
      '  POST /__emulator/faults/next {"kind":"empty|html|cut|rate-limit|corrupt|range-exceeded|refuse","count":1,"endpoint":"point/getFromPeriod","company":"<cnpj>","retryAfterSeconds":60}\n' +
      '  POST /__emulator/tokens/revoke {"cnpj":"<cnpj>"}   POST /__emulator/tokens/restore {"cnpj":"<cnpj>"}\n' +
      'See docs/emulator.md.',
  )
  .action((opts) =>
    execute(async (ctx) => (await import('./commands/emulator.js')).emulatorCommand(ctx, opts)),
  );

program
  .command('demo')
  .description('zero-config: start the emulator, migrate, backfill 90 days, run the worker and dashboard')
  .option('--days <n>', 'days of history to backfill', '90')
  .option('--emulator-url <url>', 'use this running emulator instead of starting one (docker compose)')
  .action((opts) => execute(async (ctx) => (await import('./commands/demo.js')).demoCommand(ctx, opts)));

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? 0 : EXIT.usage);
  throw err;
}
