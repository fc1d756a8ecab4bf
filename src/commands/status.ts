/**
 * `punchline status` (docs/operations.md): queue counts, failing jobs, per company × resource the last
 * successful sync and its age (stale ones flagged; summed per resource when there are many), open
 * rejected records, schema drift and doubtful time zones. `--json` prints it whole for scripts;
 * `--check` makes the exit code say whether all is well (docs/operations.md "Exit codes").
 */
import pg from 'pg';
import { UsageError, EXIT, type CommandContext } from './context.js';
import { ConnectionPauses } from '../connections/connection-pause.js';
import { openQueues } from '../runtime/queues.js';
import { createRedis } from '../runtime/redis.js';
import { parseStaleAfter } from '../reports/staleness.js';
import { assertPostgresReachable, assertRedisReachable } from '../probes/services.js';
import { collectStatus } from '../reports/status-report.js';
import { listenForConnectionErrors } from '../warehouse/db.js';
import { formatStatus } from '../reports/status-format.js';
import { zonesFromConfig } from '../reports/time-zone-report.js';
import { WarehouseNotMigratedError } from '../warehouse/errors.js';

/** Options of `punchline status`. */
export type StatusOptions = Partial<Record<'json' | 'check' | 'all', boolean>> & { staleAfter?: string };

/** `punchline status`. */
export async function statusCommand(ctx: CommandContext, opts: StatusOptions): Promise<number> {
  let staleAfterSeconds: number | undefined;
  try {
    staleAfterSeconds = parseStaleAfter(opts.staleAfter);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { config } = ctx;
  await Promise.all([assertRedisReachable(config.redisUrl), assertPostgresReachable(config.databaseUrl)]);

  const redis = createRedis(config.redisUrl, 'punchline-status', ctx.logger);
  const queues = openQueues(config, redis, ctx.logger);
  const pauses = new ConnectionPauses({
    redis,
    prefix: config.queuePrefix,
    recheckMs: config.apiTokenRecheckMs,
  });
  const names = config.connections.map((c) => c.name);
  const pool = new pg.Pool({ connectionString: config.databaseUrl, max: 2 });
  listenForConnectionErrors(pool);
  try {
    const report = await collectStatus({
      queues: queues.all,
      pool,
      schema: config.warehouseSchema,
      staleAfterSeconds,
      ...(names.length > 0 ? { pausedConnections: () => pauses.paused(names) } : {}),
      zonesInUse: zonesFromConfig(config),
    });
    ctx.out.write(
      opts.json
        ? `${JSON.stringify(report, null, 2)}\n`
        : formatStatus(
            report,
            opts.all
              ? { maxFreshnessLines: Number.POSITIVE_INFINITY, worstCompanies: Number.POSITIVE_INFINITY }
              : {},
          ),
    );
    // What could be read is shown first; without the warehouse's tables nothing can be judged.
    if (report.freshness === null) throw new WarehouseNotMigratedError(config.warehouseSchema);
    return opts.check && !report.check.ok ? EXIT.failed : EXIT.ok;
  } finally {
    await queues.close();
    await redis.quit().catch(() => redis.disconnect());
    await pool.end();
  }
}
