/** `startEmulator`: builds the world and serves the Customer API v2 (spec §4) and the admin surface. */
import fastify, { type FastifyError } from 'fastify';
import multipart from '@fastify/multipart';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiFault } from './errors.js';
import { History } from './history.js';
import { resolveOptions, mergeFaults, type EmulatorOptions, type Faults } from './options.js';
import { checkQueuedFault, FaultQueue, type QueuedFault, type QueuedFaultInput } from './queued-faults.js';
import { World } from './world.js';
import { createTruth, type EmulatorTruth } from './truth.js';
import { registerAdminRoutes } from './http/admin-routes.js';
import { endlessly, hugeBase64, spoilBody, spoilElements, trickle } from './answer-faults.js';
import { sendFault, type EmulatorContext } from './http/context.js';
import { PREFIX, registerReadRoutes } from './http/read-routes.js';
import { Traffic, type TrafficSnapshot } from './http/traffic.js';
import { registerWriteRoutes } from './http/write-routes.js';

/** A company as tests and demos address it. */
export interface EmulatedCompany {
  readonly cnpj: string;
  readonly name: string;
  readonly token: string;
  readonly isHeadquarter: boolean;
}

/** A running emulator (docs/emulator.md). */
export interface RunningEmulator {
  /** `base_url`: paths `/customer/v2/...` are appended. */
  readonly url: string;
  /** Active companies of the group, headquarters first. */
  readonly companies: EmulatedCompany[];
  readonly headquartersToken: string;
  /** The inactive branch: its token answers 401 and its CNPJ is outside the group. */
  readonly inactiveCompany: EmulatedCompany;
  /** The pinned or real today (`YYYY-MM-DD`) and the first day of history. */
  readonly today: string;
  readonly from: string;
  setFaults(f: Partial<Faults>): void;
  /** Queues a one-off fault: the next `count` matching GET answers are empty, HTML, cut or 429 (queued-faults.ts). */
  queueFault(f: QueuedFaultInput): void;
  /** Faults still queued. */
  queuedFaults(): QueuedFault[];
  /** Drops every queued fault. */
  clearQueuedFaults(): void;
  /** Revokes a company's token: every request with it answers 401 `invalid_service_token` until restored. */
  revokeToken(cnpj: string): void;
  /** Makes a revoked token work again. */
  restoreToken(cnpj: string): void;
  stats(): TrafficSnapshot;
  resetStats(): void;
  /** Ground truth straight from the model, not through the HTTP handlers. */
  readonly truth: EmulatorTruth;
  close(): Promise<void>;
}

/** Request size limit (spec §8 leaves it unshown): 10 MiB for JSON bodies and for each uploaded file. */
export const BODY_LIMIT = 10 * 1024 * 1024;

/** Starts an emulator; `port: 0` (the default) listens on a free port. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const resolved = resolveOptions(options);
  const world = new World(resolved);
  const history = new History(world);
  const traffic = new Traffic(resolved.faults, resolved.seed, resolved.now);
  const faultQueue = new FaultQueue();
  const ctx: EmulatorContext = { world, history, options: resolved, traffic, faultQueue };
  const companyOf = (cnpj: string) => {
    const c = world.companyByCnpj(cnpj);
    if (!c) throw new RangeError(`no company ${cnpj} in the emulator`);
    return c;
  };

  const app = fastify({ logger: false, bodyLimit: BODY_LIMIT, forceCloseConnections: true });
  await app.register(multipart, {
    limits: { fileSize: BODY_LIMIT, files: 20, fields: 100 },
    throwFileSizeLimit: true,
  });

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith(`${PREFIX}/`)) return;
    const raw = request.headers['apiservicetoken'];
    const token = (Array.isArray(raw) ? raw[0] : raw) ?? '';
    const path = request.routeOptions.url ?? '(unknown route)';
    const end = traffic.begin(`${request.method} ${path}`, token);
    reply.raw.once('close', end);
    if (resolved.latencyMs > 0) await sleep(resolved.latencyMs);
    const admission = traffic.admit(token);
    if (admission.delayMs > 0) await sleep(admission.delayMs);
    if (admission.kind === 'drop') {
      reply.hijack();
      request.raw.socket.destroy();
      return;
    }
    if (admission.kind === 'fault') throw admission.fault;
    const spoils = admission.kind === 'pass' && request.method === 'GET' ? admission.spoils : undefined;
    if (spoils?.trickleMs !== undefined) spoilBody(request.raw, trickle(spoils.trickleMs));
    if (spoils?.hugeBytes !== undefined) spoilBody(request.raw, hugeBase64(spoils.hugeBytes));
    if (spoils?.endless) spoilElements(request.raw, endlessly);
  });

  app.setErrorHandler((err: FastifyError, _request, reply) => {
    if (err instanceof ApiFault) return sendFault(reply, err);
    const status = err.statusCode ?? 500;
    if (status === 413)
      return sendFault(reply, new ApiFault(413, 'payload_too_large', 'The request body is too large.'));
    if (status >= 400 && status < 500)
      return sendFault(reply, new ApiFault(400, 'bad_request', `Invalid request: ${err.message}`));
    return sendFault(reply, new ApiFault(500, 'internal_server_error', 'Internal server error.'));
  });
  app.setNotFoundHandler((request, reply) =>
    sendFault(
      reply,
      new ApiFault(404, 'route_not_found', `No route ${request.method} ${request.url.split('?')[0]}.`),
    ),
  );

  registerReadRoutes(app, ctx);
  registerWriteRoutes(app, ctx);
  registerAdminRoutes(app, ctx);

  await app.listen({ port: resolved.port, host: resolved.host });
  const address = app.server.address() as AddressInfo;
  const host = resolved.host === '0.0.0.0' || resolved.host === '::' ? '127.0.0.1' : resolved.host;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`;
  const toPublic = (c: (typeof world.companies)[number]): EmulatedCompany => ({
    cnpj: c.cnpj,
    name: c.record.name,
    token: c.token,
    isHeadquarter: c.isHeadquarter,
  });
  return {
    url,
    companies: world.activeCompanies().map(toPublic),
    headquartersToken: world.headquarters.token,
    inactiveCompany: toPublic(world.companies.find((c) => !c.active)!),
    today: resolved.today,
    from: resolved.from,
    setFaults: (f) => traffic.setFaults(mergeFaults(traffic.getFaults(), f)),
    queueFault: (f) => faultQueue.push(checkQueuedFault(f)),
    queuedFaults: () => faultQueue.list(),
    clearQueuedFaults: () => faultQueue.clear(),
    revokeToken: (cnpj) => void world.revoked.add(companyOf(cnpj).cnpj),
    restoreToken: (cnpj) => void world.revoked.delete(companyOf(cnpj).cnpj),
    stats: () => traffic.snapshot(),
    resetStats: () => traffic.reset(),
    truth: createTruth(history),
    close: () => app.close(),
  };
}
