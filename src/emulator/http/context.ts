/** What every route shares: the model, and token (spec §5), scope (spec 1.4) and envelopes (spec 1.1). */
import { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { CompanyEntity } from '../entities.js';
import { ApiFault } from '../errors.js';
import type { History } from '../history.js';
import type { ResolvedOptions } from '../options.js';
import type { World } from '../world.js';
import type { FaultQueue } from '../queued-faults.js';
import { corruptOneElement, corruptRequests } from '../corrupt-element.js';
import { elementSpoilerOf, RawJson } from '../answer-faults.js';
import type { Traffic } from './traffic.js';
import type { QueryParams } from './query-params.js';

/** Everything a handler needs. */
export interface EmulatorContext {
  readonly world: World;
  readonly history: History;
  readonly options: ResolvedOptions;
  readonly traffic: Traffic;
  /** One-off faults queued at run time. */
  readonly faultQueue: FaultQueue;
}

/** spec §5: the company of the `apiServiceToken` header; 401 when missing, unknown, inactive or revoked (admin). */
export function authenticate(ctx: EmulatorContext, request: FastifyRequest): CompanyEntity {
  const raw = request.headers['apiservicetoken'];
  const token = Array.isArray(raw) ? raw[0] : raw;
  const company = token ? ctx.world.companyByToken(token) : undefined;
  if (!company || !company.active || ctx.world.revoked.has(company.cnpj)) {
    throw new ApiFault(
      401,
      'invalid_service_token',
      'The apiServiceToken header is missing, invalid, or belongs to an inactive company.',
    );
  }
  return company;
}

/**
 * spec 1.4: the companies a GET reads. `company_national_registry` picks one of the accessible group
 * (404 outside it) and wins over `include_branches=1`, which a branch token is denied (rule 3).
 */
export function resolveScope(ctx: EmulatorContext, company: CompanyEntity, q: QueryParams): CompanyEntity[] {
  const includeBranches = q.bool('include_branches') ?? false;
  const cnpj = q.scalar('company_national_registry');
  const accessible = company.isHeadquarter ? ctx.world.activeCompanies() : [company];
  if (cnpj !== undefined) {
    const target = accessible.find((c) => c.cnpj === cnpj);
    if (!target)
      throw new ApiFault(
        404,
        'company_not_found',
        `Company ${cnpj} is not part of the accessible economic group.`,
      );
    return [target];
  }
  return includeBranches ? accessible : [company];
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** Sends `{"data": …, "meta": …}` with the given status. */
export function sendData(reply: FastifyReply, status: number, data: unknown, meta?: unknown): FastifyReply {
  const raw = reply.request.raw;
  // A list answer a queued fault spoils is streamed (an endless one cannot be built whole).
  if (Array.isArray(data) && elementSpoilerOf(raw)) return streamList(reply, data, meta);
  const spoiled = Array.isArray(data) && corruptRequests.has(raw) ? [...corruptOneElement(data)] : data;
  const body = meta === undefined ? { data: spoiled } : { data: spoiled, meta };
  return reply.code(status).type(JSON_TYPE).send(JSON.stringify(body));
}

/** Sends an error envelope (spec 1.1). */
export function sendFault(reply: FastifyReply, fault: ApiFault): FastifyReply {
  for (const [k, v] of Object.entries(fault.headers)) reply.header(k, v);
  return reply.code(fault.status).type(JSON_TYPE).send(JSON.stringify(fault.envelope()));
}

const CHUNK = 64 * 1024;

function* envelopeChunks(items: Iterable<unknown>, meta: unknown): Generator<Buffer> {
  let buf = '{"data":[';
  let first = true;
  for (const item of items) {
    buf += (first ? '' : ',') + (item instanceof RawJson ? item.text : JSON.stringify(item));
    first = false;
    if (buf.length >= CHUNK) {
      yield Buffer.from(buf);
      buf = '';
    }
  }
  buf += ']';
  if (meta !== undefined) buf += `,"meta":${JSON.stringify(meta)}`;
  yield Buffer.from(`${buf}}`);
}

/** Streams a list envelope one item at a time as the client reads, so a large period never sits in memory. */
export function streamList(reply: FastifyReply, items: Iterable<unknown>, meta?: unknown): FastifyReply {
  const corrupt = corruptRequests.has(reply.request.raw) ? corruptOneElement(items) : items;
  const sent = elementSpoilerOf(reply.request.raw)?.(corrupt) ?? corrupt;
  return reply
    .code(200)
    .type(JSON_TYPE)
    .send(Readable.from(envelopeChunks(sent, meta), { objectMode: false }));
}
