/**
 * `punchline worker` (DESIGN.md §2): processes sync jobs, registers the incremental
 * schedules, serves the ops HTTP port (dashboard, /metrics, /healthz), and stops
 * gracefully on SIGTERM/SIGINT: it takes no new job and lets the active ones finish
 * (a second signal abandons them to another worker's stalled check).
 */
import type { CommandContext } from './context.js';
import { EXIT } from './context.js';
import { selectConnections } from '../config.js';
import { checkWarehouse } from '../sync/preflight.js';
import { healingFor } from '../sync/job-guard.js';
import { openRuntime } from '../sync/runtime.js';
import { startScheduleWatchdog, type ScheduleWatchdog } from '../sync/schedule-watchdog.js';
import { buildSchedulers, registerSchedules } from '../sync/schedules.js';
import { startWorkers } from '../sync/workers.js';

/** Options of `punchline worker`. */
export interface WorkerArgs {
  /** False with `--no-schedules`. */
  schedules?: boolean;
  /** False with `--no-ops`. */
  ops?: boolean;
}

/** Runs `punchline worker` until a signal. */
export async function workerCommand(ctx: CommandContext, opts: WorkerArgs): Promise<number> {
  const { config, logger } = ctx;
  selectConnections(config); // no connection configured → ConfigError, exit 2
  const rt = await openRuntime({ config, logger });
  let ops: { url: string; close(): Promise<void> } | undefined;
  let pool: ReturnType<typeof startWorkers> | undefined;
  let watchdog: ScheduleWatchdog | undefined;
  try {
    await checkWarehouse(rt.warehouse.db, rt.warehouse.schema);
    pool = startWorkers(rt, { concurrency: config.workerConcurrency, lockDurationMs: config.workerLockMs });
    if (opts.schedules !== false && config.schedules.enabled) {
      const specs = buildSchedulers(config);
      const r = await registerSchedules(rt.queues.schedules, specs);
      logger.info({ schedules: r.upserted, removed: r.removed }, 'schedules registered');
      watchdog = startScheduleWatchdog({ queue: rt.queues.schedules, specs, intervalMs: config.schedules.checkMs, logger });
    }
    if (opts.ops !== false) {
      const { startOpsServer } = await import('../ops/server.js');
      ops = await startOpsServer({
        port: config.opsPort,
        queues: rt.queues.all,
        redisUrl: config.redisUrl,
        pool: rt.warehouse.db,
        schema: rt.warehouse.schema,
        logger,
        connections: () => healingFor(rt).pauses.health(config.connections.map((c) => c.name)),
      });
    }
    logger.info(
      { queues: pool.workers.map((w) => w.name), concurrency: config.workerConcurrency, ops: ops?.url },
      'worker ready',
    );
    await new Promise<void>((resolve) => {
      if (ctx.signal.aborted) return resolve();
      ctx.signal.addEventListener('abort', () => resolve(), { once: true });
    });
    logger.info('stopping: finishing active jobs (signal again to abandon them)');
    const force = new Promise<boolean>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve(true));
    });
    const closing = pool.close(false);
    await Promise.race([closing, force.then(() => pool!.close(true))]);
    pool = undefined;
    return EXIT.ok;
  } finally {
    watchdog?.stop();
    await pool?.close(true).catch(() => undefined);
    await ops?.close().catch(() => undefined);
    await rt.close();
    logger.info('worker stopped');
  }
}
