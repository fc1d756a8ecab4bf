/**
 * The worker's ops HTTP server (docs/operations.md "The ops HTTP port", `OPS_PORT`): the bull-board
 * dashboard of every queue at `/dashboard`, Prometheus metrics at `/metrics` and a
 * Redis + Postgres (+ API connections) health check at `/healthz`. It binds loopback
 * unless told otherwise, and its dashboard only reads unless an operator credential is
 * configured, which then guards every route of the board (dashboard-access.ts);
 * docs/operations.md "Threat model" has the rest.
 */
import Fastify from 'fastify';
import type { Queue } from 'bullmq';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { DashboardCredential } from '../config.js';
import type { Logger } from '../logger.js';
import { passwordOf } from '../util/database-url.js';
import { dashboardRouteKind, decideDashboardAccess } from './dashboard-access.js';
import { checkHealth, type ConnectionHealth, type QueryableDb } from './health.js';
import { createRedisProbe } from './redis-probe.js';
import { createScrapeRegistry } from './scrape-metrics.js';
import type { ZonesInUse } from './time-zone-report.js';
import type { QueryablePool } from './freshness.js';

/** Where the dashboard is mounted. */
export const DASHBOARD_PATH = '/dashboard';

/** The ops port is taken by another process. */
export class OpsPortInUseError extends Error {
  override readonly name = 'OpsPortInUseError';
  readonly code = 'ops_port_in_use';
  constructor(readonly port: number) {
    super(`OPS_PORT ${port} is already in use (stop the other process or set OPS_PORT to a free port)`);
  }
}

/** Options of {@link startOpsServer}. */
export interface OpsServerOptions {
  /** TCP port; 0 picks a free one (tests). */
  readonly port: number;
  /** Address to bind (default `127.0.0.1`; a container sets `0.0.0.0` through OPS_HOST). */
  readonly host?: string;
  /** Every BullMQ queue to show on the dashboard and count in `/metrics`. */
  readonly queues: readonly Queue[];
  /** Redis URL that `/healthz` pings (a dedicated connection is opened). */
  readonly redisUrl: string;
  /** Warehouse pool: `/healthz` runs `select 1`, `/metrics` reads `sync_freshness`. */
  readonly pool: QueryableDb & QueryablePool;
  /** Warehouse schema holding the `sync_freshness` view. */
  readonly schema: string;
  /** Process logger. */
  readonly logger?: Logger;
  /** Operator credential every route of the dashboard then needs; without it the dashboard only reads, for anyone. */
  readonly dashboardCredential?: DashboardCredential;
  /** Secrets `/healthz` must never show besides those registered with the logger (the Redis password is added). */
  readonly secrets?: readonly string[];
  /** Deadline of each health or scrape probe in milliseconds (default 1500). */
  readonly probeTimeoutMs?: number;
  /** Clock (injected in tests). */
  readonly now?: () => Date;
  /** States of the worker's API connections, shown by `/healthz` (a paused one makes it `degraded`). */
  readonly connections?: () => Promise<Readonly<Record<string, ConnectionHealth>>>;
  /** The zones the sync uses per company, for the time-zone gauge of `/metrics` (none without). */
  readonly zonesInUse?: ZonesInUse;
}

/** A running ops server. */
export interface RunningOpsServer {
  /** Base URL, e.g. `http://127.0.0.1:9464`. */
  readonly url: string;
  /** Full URL of the dashboard. */
  readonly dashboardUrl: string;
  /** Stops serving and closes the server's own Redis connection (not the queues or pool). */
  close(): Promise<void>;
}

/** The URL at which this host reaches an ops server bound to `host` (a wildcard is reached on loopback). */
export function opsBaseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/** Starts the ops server; resolves once it listens. */
export async function startOpsServer(options: OpsServerOptions): Promise<RunningOpsServer> {
  const host = options.host ?? '127.0.0.1';
  const probeTimeoutMs = options.probeTimeoutMs ?? 1500;
  const redis = createRedisProbe(options.redisUrl);
  const registry = createScrapeRegistry({
    queues: options.queues,
    pool: options.pool,
    schema: options.schema,
    now: options.now,
    timeoutMs: probeTimeoutMs,
    logger: options.logger,
    ...(options.zonesInUse ? { zonesInUse: options.zonesInUse } : {}),
  });

  // Redis quotes the password of a refused AUTH in its error.
  const secrets = [...(options.secrets ?? []), passwordOf(options.redisUrl)].filter((s) => s !== '');

  const app = Fastify({ logger: false });

  const board = new FastifyAdapter();
  board.setBasePath(DASHBOARD_PATH);
  const readOnlyMode = options.dashboardCredential === undefined;
  createBullBoard({
    queues: options.queues.map((q) => new BullMQAdapter(q, { readOnlyMode })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'punchline' } },
  });
  // The board's routes live in a context of their own whose hook sees every request the
  // router sent to one of them, and judges it by that route: a URL spelled another way
  // (percent-encoded, absolute-form, dot segments) reaches the same route and the same
  // verdict, and a URL that matches no route reaches no handler.
  await app.register(
    async (dashboard) => {
      dashboard.addHook('onRequest', async (req, reply) => {
        const route = req.routeOptions;
        const decision = decideDashboardAccess(
          {
            kind: dashboardRouteKind(route.method),
            authorization: req.headers.authorization,
            origin: req.headers.origin,
            host: req.headers.host,
          },
          options.dashboardCredential,
        );
        if (decision.allow) return;
        if (decision.challenge) void reply.header('www-authenticate', decision.challenge);
        options.logger?.warn({ method: req.method, route: route.url, status: decision.status }, 'dashboard request refused');
        return reply.code(decision.status).send({ error: decision.reason });
      });
      await dashboard.register(board.registerPlugin());
    },
    { prefix: DASHBOARD_PATH },
  );

  app.get('/', async (_req, reply) => reply.redirect(DASHBOARD_PATH));

  app.get('/metrics', async (_req, reply) => {
    const body = await registry.metrics();
    return reply.header('content-type', registry.contentType).send(body);
  });

  app.get('/healthz', async (_req, reply) => {
    const report = await checkHealth({ redis, db: options.pool, timeoutMs: probeTimeoutMs, secrets, connections: options.connections });
    if (report.status !== 'ok') options.logger?.warn({ health: report }, report.status === 'down' ? 'health check failed' : 'health degraded');
    return reply.code(report.status === 'down' ? 503 : 200).send(report);
  });

  try {
    await app.listen({ port: options.port, host });
  } catch (err) {
    await redis.close();
    const e = err as NodeJS.ErrnoException;
    if (e.code === 'EADDRINUSE') {
      throw new OpsPortInUseError(options.port);
    }
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = opsBaseUrl(host, port);
  options.logger?.info(
    { url, host, dashboard: readOnlyMode ? 'read-only' : 'operator credential required for writes' },
    'ops server listening (dashboard, /metrics, /healthz)',
  );

  return {
    url,
    dashboardUrl: `${url}${DASHBOARD_PATH}`,
    async close() {
      await app.close();
      await redis.close();
    },
  };
}
