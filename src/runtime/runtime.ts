/**
 * src/runtime/ — the BullMQ runtime of a process: queues, workers, schedules, and the run
 * of one job with its guards and bookkeeping.
 *
 * The sync's long-lived resources of one process: Redis, the queues, the warehouse pool,
 * and one API client per connection (created on first use).
 */
import type { Redis } from 'ioredis';
import type { Config, Connection } from '../config.js';
import type { Logger } from '../logger.js';
import { openCheckPool, type CheckPool } from '../quality/check-pool.js';
import { createWarehouse, type Warehouse } from '../warehouse/db.js';
import { createConnectionClient, type ConnectionClient } from '../connections/api-clients.js';
import type { JobProcessor } from './job-context.js';
import { UnknownConnectionError } from '../load/errors.js';
import { EngineMemory } from '../load/memory.js';
import { openQueues, type SyncQueues } from './queues.js';
import { ConnectionPauses } from '../connections/connection-pause.js';
import { WarehouseGate } from './warehouse-gate.js';
import { OpsEvents } from '../telemetry/events.js';
import { createRedis } from './redis.js';

/** The warehouse as the sync uses it: a pool on its schema, and the checks' own (quality/check-pool.ts). */
type SyncWarehouse = Pick<Warehouse, 'pool' | 'schema' | 'close'> & { readonly checks: CheckPool };

/** Checks after runs at once, whatever the jobs at once: on the cores the loads need too. */
const CHECKS_AT_ONCE = 2;

/** Opens the configured warehouse, with a pool large enough for the jobs of this process. */
function openSyncWarehouse(config: Config): SyncWarehouse {
  const loads = createWarehouse(config.databaseUrl, config.warehouseSchema, {
    max: Math.max(4, config.workerConcurrency * 2 + 2),
    applicationName: 'punchline-sync',
  });
  const checks = openCheckPool(config.databaseUrl, config.warehouseSchema, {
    max: CHECKS_AT_ONCE,
    applicationName: 'punchline-checks',
  });
  return {
    pool: loads.pool,
    schema: loads.schema,
    checks: checks.pool,
    async close() {
      await Promise.all([loads.close(), checks.close()]);
    },
  };
}

/** The fault-healing state of a runtime (job-guard.ts): paused connections (Redis), the wait for the warehouse. */
export interface Healing {
  readonly pauses: ConnectionPauses;
  readonly warehouse: WarehouseGate;
}

/** The job processors of jobs/, handed to the runtime by whoever opens it (commands, tests). */
export interface Processors {
  /** The processor of every resource's jobs (the load engine reads the resource's declaration). */
  readonly sync: JobProcessor;
  /** A tick of an incremental schedule (its job data is validated by the processor). */
  schedule(rt: SyncRuntime, data: unknown, options?: TickOptions): Promise<unknown>;
}

/** A schedule tick's options: a clock (tests), and the job's logger (default: the runtime's). */
export type TickOptions = { readonly now?: () => Date; readonly logger?: Logger };

/** Long-lived resources of the sync in one process. */
export interface SyncRuntime {
  readonly config: Config;
  readonly logger: Logger;
  /** Redis connection for budgets and queues. */
  readonly redis: Redis;
  readonly queues: SyncQueues;
  readonly processors: Processors;
  readonly warehouse: SyncWarehouse;
  /** The sync's wall clock: which day is today for each company (tests pin it). */
  readonly now: () => Date;
  /** What this runtime's loads remember across jobs; its API clients report their drift to it. */
  readonly memory: EngineMemory;
  /** What heals routine faults around every job (job-guard.ts). */
  readonly healing: Healing;
  /** The events a person may need to hear about (jobs failed for good, rejected tokens), to its own sink. */
  readonly events: OpsEvents;
  /** The client of a configured connection (throws {@link UnknownConnectionError}). */
  client(name: string): ConnectionClient;
  /** Closes clients, queues, Redis and the warehouse. */
  close(): Promise<void>;
}

/** Opens the sync's resources, with the job processors of jobs/index.ts; `now` defaults to the real clock. */
export async function openRuntime(
  options: Pick<SyncRuntime, 'config' | 'logger' | 'processors'> & { readonly now?: () => Date },
): Promise<SyncRuntime> {
  const { config, logger } = options;
  const warehouse = openSyncWarehouse(config);
  const redis = createRedis(config.redisUrl, 'punchline-sync', logger);
  const queues = openQueues(config, redis, logger);
  const clients = new Map<string, ConnectionClient>();
  const byName = new Map<string, Connection>(config.connections.map((c) => [c.name, c]));
  const memory = new EngineMemory();
  const healing: Healing = {
    pauses: new ConnectionPauses({ redis, prefix: config.queuePrefix, recheckMs: config.apiTokenRecheckMs }),
    warehouse: new WarehouseGate({
      db: warehouse.pool,
      logger,
      maxWaitMs: config.warehouseWaitMs,
      maxDelayMs: config.warehouseRetryMaxMs,
    }),
  };
  return {
    config,
    logger,
    redis,
    queues,
    processors: options.processors,
    warehouse,
    now: options.now ?? (() => new Date()),
    memory,
    healing,
    events: new OpsEvents(),
    client(name) {
      let c = clients.get(name);
      if (!c) {
        const connection = byName.get(name);
        if (!connection) throw new UnknownConnectionError(name, [...byName.keys()]);
        c = createConnectionClient(config, connection, redis, memory.drift.watch);
        clients.set(name, c);
      }
      return c;
    },
    async close() {
      await Promise.all([...clients.values()].map((c) => c.api.close()));
      await queues.close();
      await redis.quit().catch(() => redis.disconnect());
      await warehouse.close();
    },
  };
}
