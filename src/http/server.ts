/**
 * src/http/ — the ops HTTP port of a worker: dashboard, status page, `/metrics`, `/healthz`.
 */
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import type { Queue } from 'bullmq';
import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { FastifyAdapter } from '@bull-board/fastify';
import type { DashboardCredential } from '../config.js';
import type { Logger } from '../logger.js';
import { passwordOf } from '../util/database-url.js';
import { PunchlineError } from '../util/errors.js';
import { dashboardRouteKind, decideDashboardAccess, type DashboardRouteKind } from './dashboard-access.js';
import type { ConnectionHealth } from '../connections/connection-pause.js';
import { checkHealth, safeReason, type QueryableDb } from '../probes/health.js';
import { createRedisProbe } from '../probes/redis-probe.js';
import { createScrapeRegistry } from './scrape-metrics.js';
import {
  collectStatus,
  type PausedConnection,
  type StatusQueue,
  type StatusReport,
} from '../reports/status-report.js';
import { renderStatusPage } from './status-page.js';
import { withTimeout } from '../util/timeout.js';
import type { ZonesInUse } from '../reports/time-zone-report.js';
import type { SqlRunner } from '../warehouse/db.js';

/** Where the dashboard is mounted, the status page, and its report as JSON (`punchline status --json`). */
const DASHBOARD_PATH = '/dashboard';
const STATUS_PATH = '/status';
const STATUS_JSON_PATH = '/status.json';

/** The status page loads nothing but itself (inline style, no script): works offline, pulls nothing in. */
const STATUS_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** The ops port is taken by another process. */
export class OpsPortInUseError extends PunchlineError<'ops_port_in_use'> {
  override readonly name = 'OpsPortInUseError';
  constructor(readonly port: number) {
    super(
      'ops_port_in_use',
      `OPS_PORT ${port} is already in use (stop the other process or set OPS_PORT to a free port)`,
    );
  }
}

/** Options of {@link startOpsServer}. */
export interface OpsServerOptions {
  /** TCP port; 0 picks a free one (tests). */
  readonly port: number;
  /** Address to bind (default `127.0.0.1`; a container sets `0.0.0.0` through OPS_HOST). */
  readonly host?: string;
  /** Every BullMQ queue to show on the dashboard, count in `/metrics` and report on `/status`. */
  readonly queues: readonly (Queue & StatusQueue)[];
  /** Redis URL that `/healthz` pings (a dedicated connection is opened). */
  readonly redisUrl: string;
  /** The warehouse: `/healthz` runs `select 1`, `/metrics` and `/status` read its views. */
  readonly pool: QueryableDb & SqlRunner;
  readonly schema: string;
  readonly logger?: Logger;
  /** Operator credential every route of the dashboard then needs; without it the dashboard only reads, for anyone. */
  readonly dashboardCredential?: DashboardCredential;
  /** Secrets `/healthz` must never show besides those registered with the logger (the Redis password is added). */
  readonly secrets?: readonly string[];
  /** Deadlines (ms) of each health or scrape probe (default 1500) and of the `/status` report (10 000). */
  readonly probeTimeoutMs?: number;
  readonly statusTimeoutMs?: number;
  readonly now?: () => Date;
  /** States of the worker's API connections, shown by `/healthz` (a paused one makes it `degraded`). */
  readonly connections?: () => Promise<Readonly<Record<string, ConnectionHealth>>>;
  /** The zones the sync uses per company, for the time-zone gauge of `/metrics` and the warnings of `/status` (none without). */
  readonly zonesInUse?: ZonesInUse;
  /** The connections paused after a 401, for `/status`. */
  readonly pausedConnections?: () => Promise<readonly PausedConnection[]>;
}

/** A running ops server. */
export interface RunningOpsServer {
  /** Base URL, e.g. `http://127.0.0.1:9464`. */
  readonly url: string;
  readonly dashboardUrl: string;
  /** Stops serving and closes the server's own Redis connection (not the queues or pool). */
  close(): Promise<void>;
}

/** The URL at which this host reaches an ops server bound to `host` (a wildcard is reached on loopback). */
export function opsBaseUrl(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host.includes(':') ? `[${host}]` : host;
  return `http://${shown}:${port}`;
}

/**
 * Starts the ops server (docs/operations.md "The ops HTTP port"); resolves once it listens. It binds
 * loopback unless told otherwise; the bull-board dashboard only reads unless an operator credential is
 * configured, which then guards every route of the board (dashboard-access.ts;
 * docs/operations.md "Threat model").
 */
export async function startOpsServer(options: OpsServerOptions): Promise<RunningOpsServer> {
  const { logger, dashboardCredential: credential } = options;
  const host = options.host ?? '127.0.0.1';
  const probeTimeoutMs = options.probeTimeoutMs ?? 1500;
  const redis = createRedisProbe(options.redisUrl);
  const registry = createScrapeRegistry({ ...options, timeoutMs: probeTimeoutMs });

  // Redis quotes the password of a refused AUTH in its error.
  const secrets = [...(options.secrets ?? []), passwordOf(options.redisUrl)].filter((s) => s !== '');

  const app = Fastify({ logger: false });

  const board = new FastifyAdapter();
  board.setBasePath(DASHBOARD_PATH);
  const readOnlyMode = credential === undefined;
  createBullBoard({
    queues: options.queues.map((q) => new BullMQAdapter(q, { readOnlyMode })),
    serverAdapter: board,
    options: { uiConfig: { boardTitle: 'punchline' } },
  });
  /** Sends and logs the refusal of `req` to a route of kind `kind`, if the board's rule refuses it. */
  const refuse = (req: FastifyRequest, reply: FastifyReply, kind: DashboardRouteKind, message: string) => {
    const { authorization, origin, host: hostHeader } = req.headers;
    const decision = decideDashboardAccess({ kind, authorization, origin, host: hostHeader }, credential);
    if (decision.allow) return undefined;
    if (decision.challenge) void reply.header('www-authenticate', decision.challenge);
    logger?.warn({ method: req.method, route: req.routeOptions.url, status: decision.status }, message);
    return reply.code(decision.status).send({ error: decision.reason });
  };
  // The board's routes live in a context of their own whose hook sees every request the
  // router sent to one of them, and judges it by that route: a URL spelled another way
  // (percent-encoded, absolute-form, dot segments) reaches the same route and the same
  // verdict, and a URL that matches no route reaches no handler.
  await app.register(
    async (dashboard) => {
      dashboard.addHook('onRequest', async (req, reply) =>
        refuse(req, reply, dashboardRouteKind(req.routeOptions.method), 'dashboard request refused'),
      );
      await dashboard.register(board.registerPlugin());
    },
    { prefix: DASHBOARD_PATH },
  );

  app.get('/', async (_req, reply) => reply.redirect(DASHBOARD_PATH));

  app.get('/metrics', async (_req, reply) =>
    reply.header('content-type', registry.contentType).send(await registry.metrics()),
  );

  const readStatus = () =>
    withTimeout(collectStatus(options), options.statusTimeoutMs ?? 10_000, 'the status report');
  // Both show failure reasons of jobs, so they follow the board's rule for reads (only the
  // operator once a credential is set), and answer 503 with the reason (no secret, no
  // stack) when Redis or Postgres cannot be read.
  const statusRoute =
    (
      type: string,
      render: (report: StatusReport) => string,
      headers: Readonly<Record<string, string>> = {},
    ) =>
    async (req: FastifyRequest, reply: FastifyReply) => {
      void reply.header('cache-control', 'no-store');
      const refused = refuse(req, reply, 'read', 'status request refused');
      if (refused) return refused;
      try {
        const body = render(await readStatus());
        return await reply.headers({ ...headers, 'content-type': type }).send(body);
      } catch (err) {
        const reason = safeReason((err as Error)?.message || String(err), secrets);
        logger?.warn({ err }, 'status report failed');
        return reply
          .code(503)
          .header('content-type', 'text/plain; charset=utf-8')
          .send(`status unavailable: ${reason}\n`);
      }
    };
  const page = { dashboardPath: DASHBOARD_PATH, jsonPath: STATUS_JSON_PATH };
  const csp = { 'content-security-policy': STATUS_PAGE_CSP };
  app.get(
    STATUS_PATH,
    statusRoute('text/html; charset=utf-8', (r) => renderStatusPage(r, page), csp),
  );
  app.get(
    STATUS_JSON_PATH,
    statusRoute('application/json; charset=utf-8', (report) => `${JSON.stringify(report, null, 2)}\n`),
  );

  app.get('/healthz', async (_req, reply) => {
    const report = await checkHealth({
      redis,
      db: options.pool,
      timeoutMs: probeTimeoutMs,
      secrets,
      connections: options.connections,
    });
    if (report.status !== 'ok')
      logger?.warn({ health: report }, report.status === 'down' ? 'health check failed' : 'health degraded');
    return reply.code(report.status === 'down' ? 503 : 200).send(report);
  });

  try {
    await app.listen({ port: options.port, host });
  } catch (err) {
    await redis.close();
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new OpsPortInUseError(options.port);
    throw err;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = opsBaseUrl(host, port);
  logger?.info(
    { url, host, dashboard: readOnlyMode ? 'read-only' : 'operator credential required for writes' },
    'ops server listening (dashboard, /status, /metrics, /healthz)',
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
