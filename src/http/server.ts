/**
 * src/http/ — the ops HTTP port of a worker: dashboard, status page, `/metrics`, `/livez`,
 * `/readyz` (and `/healthz`, its old name).
 *
 * It trusts no `Host`: a browser that a rebinding DNS name points at the port sends that name,
 * so a request naming a host the server was not told to serve gets 421 before any route
 * (host-check.ts). It binds loopback unless told otherwise, and refuses to bind another address
 * without an operator credential unless that is asked for explicitly.
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
import {
  carriesCredential,
  dashboardRouteKind,
  decideDashboardAccess,
  type DashboardRouteKind,
} from './dashboard-access.js';
import { hostOf, isLoopback, servedHosts } from './host-check.js';
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

/** Headers of every answer: no page of another site frames it, no browser guesses a type, no URL leaks onwards. */
const SAFETY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
} as const;
/** The Content-Security-Policy of an answer that sets none of its own (the dashboard loads its own scripts). */
const DEFAULT_CSP = "frame-ancestors 'none'";

/** Binding an address other than loopback without an operator credential, not asked for. */
export class OpsBindRefusedError extends PunchlineError<'ops_bind_refused'> {
  override readonly name = 'OpsBindRefusedError';
  constructor(readonly host: string) {
    super(
      'ops_bind_refused',
      `OPS_HOST ${host} is not a loopback address and OPS_DASHBOARD_TOKEN is not set: anyone who reaches the port would read every job (set OPS_DASHBOARD_TOKEN, or OPS_ALLOW_NO_TOKEN=1 when only trusted hosts reach it)`,
    );
  }
}

/** Throws {@link OpsBindRefusedError} when binding `host` needs a credential that is missing and not waived (pure). */
export function checkOpsBind(host: string, hasCredential: boolean, allowNoToken: boolean): void {
  if (!isLoopback(host) && !hasCredential && !allowNoToken) throw new OpsBindRefusedError(host);
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
  /** Host names served besides loopback and the bound address (OPS_ALLOWED_HOSTS). */
  readonly allowedHosts?: readonly string[];
  /** Bind an address other than loopback without a credential (OPS_ALLOW_NO_TOKEN). */
  readonly allowNoToken?: boolean;
  /** Serve `/metrics` without the credential even when one is set (OPS_METRICS_OPEN). */
  readonly metricsOpen?: boolean;
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
  checkOpsBind(host, credential !== undefined, options.allowNoToken === true);
  const served = servedHosts(host, options.allowedHosts ?? []);
  const probeTimeoutMs = options.probeTimeoutMs ?? 1500;
  const redis = createRedisProbe(options.redisUrl);
  const registry = createScrapeRegistry({ ...options, timeoutMs: probeTimeoutMs });

  // Redis quotes the password of a refused AUTH in its error.
  const secrets = [...(options.secrets ?? []), passwordOf(options.redisUrl)].filter((s) => s !== '');

  const app = Fastify({ logger: false });
  // Before any route, the dashboard's included: a Host the server does not serve is a
  // rebinding DNS name (or a misdirected request), whatever its Origin says.
  app.addHook('onRequest', async (req, reply) => {
    const named = hostOf(req.headers.host);
    if (named !== undefined && served.has(named)) return undefined;
    logger?.warn(
      { method: req.method, route: req.routeOptions.url, status: 421 },
      'ops request for a host not served',
    );
    return reply
      .code(421)
      .send({ error: 'this server does not answer for that host name (OPS_ALLOWED_HOSTS)' });
  });
  app.addHook('onSend', async (_req, reply, payload) => {
    void reply.headers(SAFETY_HEADERS);
    if (!reply.hasHeader('content-security-policy'))
      void reply.header('content-security-policy', DEFAULT_CSP);
    return payload;
  });

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

  // The metrics name companies and connections: the operator's once a credential is set, unless opened.
  const metricsGuarded = credential !== undefined && options.metricsOpen !== true;
  app.get('/metrics', async (req, reply) => {
    if (metricsGuarded && !carriesCredential(req.headers.authorization, credential)) {
      logger?.warn({ method: req.method, route: '/metrics', status: 401 }, 'metrics request refused');
      return reply
        .code(401)
        .header('www-authenticate', 'Basic realm="punchline metrics", charset="UTF-8"')
        .send({
          error: 'the metrics need the operator credential (OPS_DASHBOARD_TOKEN; or OPS_METRICS_OPEN=1)',
        });
    }
    return reply.header('content-type', registry.contentType).send(await registry.metrics());
  });

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

  // Alive: the process answers (an orchestrator restarts it otherwise). Nothing is probed.
  app.get('/livez', async (_req, reply) => reply.header('cache-control', 'no-store').send({ status: 'ok' }));
  // Ready: Redis and Postgres answer, and the connections' state; /healthz is its old name.
  const readiness = async (_req: FastifyRequest, reply: FastifyReply) => {
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
  };
  app.get('/readyz', readiness);
  app.get('/healthz', readiness);

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
    'ops server listening (dashboard, /status, /metrics, /livez, /readyz)',
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
