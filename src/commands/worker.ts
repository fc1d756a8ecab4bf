/**
 * `punchline worker` (docs/operations.md "Worker"): processes sync jobs, registers the incremental
 * schedules, serves the ops HTTP port (dashboard, /status, /metrics, /healthz), and stops
 * gracefully on SIGTERM/SIGINT: it takes no new job and lets the active ones finish (a second
 * signal abandons them to another worker's stalled check).
 */
import { once } from 'node:events';
import { EXIT, type CommandContext } from './context.js';
import { configSecrets, selectConnections } from '../config.js';
import { checkWarehouse } from '../runtime/preflight.js';
import { JOBS } from '../../jobs/index.js';
import { assertRedisReachable } from '../probes/services.js';
import { zonesFromConfig } from '../reports/time-zone-report.js';
import { openRuntime, type SyncRuntime } from '../runtime/runtime.js';
import { startScheduleWatchdog, type ScheduleWatchdog } from '../runtime/schedule-watchdog.js';
import { watchPauses, type PauseWatch } from '../runtime/queue-pauses.js';
import { buildSchedulers, registerSchedules } from '../runtime/schedules.js';
import { startWorkers } from '../runtime/workers.js';
import { startPendingMarts } from '../runtime/marts-job.js';

/** How often a worker looks for paused queues, ms. */
const PAUSE_CHECK_MS = 15_000;

/** Options of `punchline worker`: each false with its `--no-...` flag. */
export type WorkerArgs = Partial<Record<'schedules' | 'ops', boolean>>;

/**
 * Webhook alerts (NOTIFY_WEBHOOK_URL): the notifier receives the sync's events and checks freshness
 * every minute; `stop` ends both and lets the messages in flight go out.
 */
async function startAlerts(rt: SyncRuntime, url: string): Promise<{ stop(): Promise<void> }> {
  const { WebhookNotifier, startStalenessWatch } = await import('../alerts/notify.js');
  const notifier = new WebhookNotifier({
    url,
    redis: rt.redis,
    prefix: rt.config.queuePrefix,
    logger: rt.logger,
  });
  const uninstall = rt.events.install(notifier);
  const watch = startStalenessWatch(
    notifier,
    { pool: rt.warehouse.pool, schema: rt.warehouse.schema },
    { logger: rt.logger },
  );
  rt.logger.info('webhook notifications on (job failures, rejected tokens, stale data)');
  return {
    async stop() {
      await watch.stop();
      uninstall();
      await notifier.flush();
    },
  };
}

/** Runs `punchline worker` until a signal. */
export async function workerCommand(ctx: CommandContext, opts: WorkerArgs): Promise<number> {
  const { config, logger } = ctx;
  selectConnections(config); // no connection configured → ConfigError, exit 2
  if (opts.ops !== false) {
    // Before any work: an ops port open to others without a credential is refused (exit 2).
    const { checkOpsBind } = await import('../http/server.js');
    checkOpsBind(config.opsHost, config.dashboardCredential !== undefined, config.opsAllowNoToken);
  }
  await assertRedisReachable(config.redisUrl); // else the queues would wait for it without a word
  const rt = await openRuntime({ config, logger, processors: JOBS });
  let ops: { url: string; close(): Promise<void> } | undefined;
  let pool: ReturnType<typeof startWorkers> | undefined;
  let alerts: { stop(): Promise<void> } | undefined;
  let watchdog: ScheduleWatchdog | undefined;
  let pauses: PauseWatch | undefined;
  try {
    await checkWarehouse(rt.warehouse.pool, rt.warehouse.schema);
    pool = startWorkers(rt, { concurrency: config.workerConcurrency, lockDurationMs: config.workerLockMs });
    // Changes left pending (a lost follow-up, a migration that asks for a rebuild of the marts).
    const pendingMarts = await startPendingMarts(rt);
    if (pendingMarts > 0)
      logger.info({ companies: pendingMarts }, 'marts follow-ups queued for pending changes');
    // A queue paused from the dashboard holds its jobs without a word: say so, now and when it happens.
    pauses = watchPauses({ queues: rt.queues.all, logger, intervalMs: PAUSE_CHECK_MS });
    if (opts.schedules !== false && config.schedules.enabled) {
      const specs = buildSchedulers(config);
      const r = await registerSchedules(rt.queues.schedules, specs);
      logger.info({ schedules: r.upserted, removed: r.removed }, 'schedules registered');
      watchdog = startScheduleWatchdog({
        queue: rt.queues.schedules,
        specs,
        intervalMs: config.schedules.checkMs,
        logger,
      });
    }
    if (config.notifyWebhookUrl) alerts = await startAlerts(rt, config.notifyWebhookUrl);
    if (opts.ops !== false) {
      const { startOpsServer } = await import('../http/server.js');
      ops = await startOpsServer({
        port: config.opsPort,
        host: config.opsHost,
        ...(config.dashboardCredential ? { dashboardCredential: config.dashboardCredential } : {}),
        allowedHosts: config.opsAllowedHosts ?? [],
        allowNoToken: config.opsAllowNoToken,
        metricsOpen: config.opsMetricsOpen,
        secrets: configSecrets(config),
        queues: rt.queues.all,
        redisUrl: config.redisUrl,
        pool: rt.warehouse.pool,
        schema: rt.warehouse.schema,
        logger,
        connections: () => rt.healing.pauses.health(config.connections.map((c) => c.name)),
        pausedConnections: () => rt.healing.pauses.paused(config.connections.map((c) => c.name)),
        zonesInUse: zonesFromConfig(config),
      });
    }
    logger.info(
      { queues: pool.workers.map((w) => w.name), concurrency: config.workerConcurrency, ops: ops?.url },
      'worker ready',
    );
    if (config.pseudonymKey === undefined) {
      logger.warn('PSEUDONYM_KEY is not set: the analyst views show no pseudonyms (docs/privacy.md)');
    }
    if (!ctx.signal.aborted) await once(ctx.signal, 'abort');
    logger.info('stopping: finishing active jobs (signal again to abandon them)');
    const force = new Promise<void>((resolve) => {
      for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => resolve());
    });
    await Promise.race([pool.close(false), force.then(() => pool!.close(true))]);
    pool = undefined;
    return EXIT.ok;
  } finally {
    watchdog?.stop();
    pauses?.stop();
    await pool?.close(true).catch(() => undefined);
    await alerts?.stop().catch(() => undefined);
    await ops?.close().catch(() => undefined);
    await rt.close();
    logger.info('worker stopped');
  }
}
