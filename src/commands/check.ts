/**
 * `punchline check` (docs/operations.md "Checking the connections"): whether each thing punchline
 * connects to answers — Postgres (and whether WAREHOUSE_SCHEMA is migrated to this version),
 * Redis, and every API connection (its token accepted: one group walk). Every one is checked,
 * whatever the others say; the exit code is the worst: 2 when one refuses (something to fix:
 * credentials, a token, a missing migration), else 3 when one does not answer (try later), else 0.
 */
import { ApiClient } from '../api/client.js';
import type { Config, Connection } from '../config.js';
import { checkConnection, checkWarehouse } from '../runtime/preflight.js';
import { assertPostgresReachable, assertRedisReachable } from '../probes/services.js';
import { createWarehouse } from '../warehouse/db.js';
import { renderTable } from '../reports/status-format.js';
import { scrubSecrets } from '../logger.js';
import type { Logger } from '../logger.js';
import { EXIT, type CommandContext, type ExitCode } from './context.js';
import { exitCodeOf } from './exit-codes.js';

/** Options of `punchline check`. */
export type CheckArgs = { json?: boolean };

/** The outcome of checking one connection. */
export interface CheckOutcome {
  /** `postgres`, `redis`, or `api <connection>`. */
  readonly target: string;
  readonly ok: boolean;
  /** What answered, or why not (one line, secrets scrubbed). */
  readonly detail: string;
  /** The exit code this outcome asks for (0 when ok). */
  readonly exit: ExitCode;
}

/** Runs `probe` and says what came of it. */
async function outcome(target: string, probe: () => Promise<string>): Promise<CheckOutcome> {
  try {
    return { target, ok: true, detail: await probe(), exit: EXIT.ok };
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err);
    return { target, ok: false, detail: scrubSecrets(text.replace(/\s+/g, ' ')), exit: exitCodeOf(err) };
  }
}

/** Postgres answers, and the warehouse schema is migrated to this punchline's version. */
async function checkPostgres(config: Config): Promise<string> {
  await assertPostgresReachable(config.databaseUrl);
  const w = createWarehouse(config.databaseUrl, config.warehouseSchema, { max: 1 });
  try {
    await checkWarehouse(w.pool, w.schema);
  } finally {
    await w.close();
  }
  return `reachable, schema ${config.warehouseSchema} migrated and current`;
}

/** The API of `connection` answers and accepts its token (the group walk, no retry storm). */
async function checkApi(config: Config, connection: Connection, logger: Logger): Promise<string> {
  const api = new ApiClient({
    baseUrl: connection.baseUrl,
    token: connection.token,
    timeoutMs: Math.min(config.apiTimeoutMs, 10_000),
  });
  try {
    const walk = await checkConnection({ connection, api });
    logger.debug({ connection: connection.name, companies: walk.companies.length }, 'API answered');
    return `${connection.baseUrl}: token accepted, ${walk.companies.length} compan${walk.companies.length === 1 ? 'y' : 'ies'}`;
  } finally {
    await api.close();
  }
}

/** Checks every connection of `config`, each whatever the others say. */
export async function checkAll(config: Config, logger: Logger): Promise<CheckOutcome[]> {
  return Promise.all([
    outcome('postgres', () => checkPostgres(config)),
    outcome('redis', async () => {
      await assertRedisReachable(config.redisUrl);
      return 'reachable';
    }),
    ...config.connections.map((c) => outcome(`api ${c.name}`, () => checkApi(config, c, logger))),
  ]);
}

/** The exit code of a check: 2 when something refused, else 3 when something did not answer, else 0. */
export function checkExitCode(outcomes: readonly CheckOutcome[]): ExitCode {
  const codes = outcomes.map((o) => o.exit);
  if (codes.includes(EXIT.usage)) return EXIT.usage;
  if (codes.includes(EXIT.unavailable)) return EXIT.unavailable;
  return codes.includes(EXIT.failed) ? EXIT.failed : EXIT.ok;
}

/** The outcomes as a table (pure). */
export function formatCheck(outcomes: readonly CheckOutcome[]): string {
  const rows = outcomes.map((o) => [o.target, o.ok ? 'ok' : 'FAILED', o.detail]);
  const none = outcomes.some((o) => o.target.startsWith('api '))
    ? ''
    : 'no API connection configured (SERVICE_API_BASE_URL and SERVICE_API_TOKEN, or PUNCHLINE_CONFIG)\n';
  return `${renderTable(['connection', 'state', 'detail'], rows)}\n${none}`;
}

/** Checks every connection and prints the outcomes; the exit code says the worst (file comment). */
export async function checkCommand(ctx: CommandContext, opts: CheckArgs = {}): Promise<number> {
  const outcomes = await checkAll(ctx.config, ctx.logger);
  const exit = checkExitCode(outcomes);
  ctx.out.write(
    opts.json
      ? `${JSON.stringify({ ok: exit === EXIT.ok, exit, outcomes }, null, 2)}\n`
      : formatCheck(outcomes),
  );
  return exit;
}
