/**
 * The sync's long-lived resources of one process: Redis, the queues, the warehouse
 * pool and loaders, and one API client per connection (created on first use). A
 * connection whose token is rejected is paused through Redis (connection-pause.ts).
 */
import type { Redis } from 'ioredis';
import type { Config, Connection } from '../config.js';
import type { Logger } from '../logger.js';
import { createConnectionClient, type ConnectionClient } from './api-clients.js';
import { UnknownConnectionError } from './errors.js';
import type { SyncLoaders } from './job-context.js';
import { openQueues, type SyncQueues } from './queues.js';
import { createRedis } from './redis.js';
import type { Queryable } from './run-records.js';

/** The warehouse as the sync uses it. */
export interface SyncWarehouse {
  /** Pool for bookkeeping and follow-up reads. */
  readonly db: Queryable;
  /** Schema of every table. */
  readonly schema: string;
  /** Loaders bound to the warehouse. */
  readonly load: SyncLoaders;
  /** Closes the pool. */
  close(): Promise<void>;
}

/** Long-lived resources of the sync in one process. */
export interface SyncRuntime {
  /** Parsed configuration. */
  readonly config: Config;
  /** Process logger. */
  readonly logger: Logger;
  /** Redis connection for budgets and queues. */
  readonly redis: Redis;
  /** The queues. */
  readonly queues: SyncQueues;
  /** The warehouse. */
  readonly warehouse: SyncWarehouse;
  /** The client of a configured connection (throws {@link UnknownConnectionError}). */
  client(name: string): ConnectionClient;
  /** Closes clients, queues, Redis and the warehouse. */
  close(): Promise<void>;
}

/** Options of {@link openRuntime}. */
export interface RuntimeOptions {
  /** Parsed configuration. */
  readonly config: Config;
  /** Logger. */
  readonly logger: Logger;
  /** Opens the warehouse (default: the real one, see warehouse-loaders.ts). */
  readonly openWarehouse?: (config: Config) => Promise<SyncWarehouse>;
}

/** Opens the sync's resources. */
export async function openRuntime(options: RuntimeOptions): Promise<SyncRuntime> {
  const { config, logger } = options;
  const open = options.openWarehouse ?? (async (c: Config) => (await import('./warehouse-loaders.js')).openSyncWarehouse(c));
  const warehouse = await open(config);
  const redis = createRedis(config.redisUrl, 'punchline-sync');
  const queues = openQueues(config, redis);
  const clients = new Map<string, ConnectionClient>();
  const byName = new Map<string, Connection>(config.connections.map((c) => [c.name, c]));
  return {
    config,
    logger,
    redis,
    queues,
    warehouse,
    client(name) {
      let c = clients.get(name);
      if (!c) {
        const connection = byName.get(name);
        if (!connection) throw new UnknownConnectionError(name, [...byName.keys()]);
        c = createConnectionClient(config, connection, redis);
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
