/** The 22 read endpoints of spec 4.1: token, scope and parameters checked, period answers streamed. */
import { PassThrough, Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { dayOf } from '../calendar.js';
import type { CollaboratorEntity, CompanyEntity, LookupEntity } from '../entities.js';
import { ApiFault } from '../errors.js';
import { facePng } from '../attachments.js';
import {
  absenceJson,
  absenceTypeJson,
  DAY_ENTRY_ENDPOINTS,
  dayJson,
  duration,
  periodTotals,
  punchTraits,
  totalsJson,
} from '../records.js';
import { LOOKUP_LISTS } from '../../resources/lookups.js';
import { authenticate, resolveScope, sendData, streamList, type EmulatorContext } from './context.js';
import { corruptRequests } from '../corrupt-element.js';
import {
  bodySpoilerOf,
  DEFAULT_HUGE_BYTES,
  DEFAULT_TRICKLE_MS,
  endlessly,
  hugeBase64,
  repeatFirst,
  withOddOrigins,
  withNulElement,
  withDeepElement,
  spoilBody,
  spoilElements,
  trickle,
  withForeignCompany,
} from '../answer-faults.js';
import type { QueuedFault } from '../queued-faults.js';
import { QueryParams } from './query-params.js';

/** Route prefix of spec §4. */
export const PREFIX = '/customer/v2';

type Handler = (
  ctx: EmulatorContext,
  company: CompanyEntity,
  scope: CompanyEntity[],
  q: QueryParams,
  reply: FastifyReply,
) => unknown;

/** A proxy's sign-in page, answered with 200 by the queued fault `html`. */
const HTML_PAGE =
  '<!DOCTYPE html><html lang="pt-BR"><head><meta charset="utf-8"><title>Acesso</title></head>' +
  '<body><h1>Sessão expirada</h1><p>Faça login novamente para continuar.</p></body></html>';

/** Requests whose body the queued fault `cut` spoils (see the onSend hook). */
const cutRequests = new WeakSet<object>();

/** Endpoints whose answers carry a file as `base64` (spec 2.6, 2.13): where `huge-attachment` applies. */
const FILE_PATHS: ReadonlySet<string> = new Set(['/absence/attachment', '/point/audit']);

/** Queued faults that spoil the elements of a list answer. */
const LIST_FAULTS: ReadonlySet<QueuedFault['kind']> = new Set([
  'empty',
  'corrupt',
  'endless',
  'repeat',
  'foreign-company',
  'odd-origins',
  'nul-element',
  'deep-element',
]);

/** Marks the answer of a request with the answer fault `fault` (answer-faults.ts). */
function markAnswerFault(
  ctx: EmulatorContext,
  raw: object,
  fault: QueuedFault,
  scope: readonly CompanyEntity[],
): void {
  if (fault.kind === 'trickle') spoilBody(raw, trickle(fault.intervalMs ?? DEFAULT_TRICKLE_MS));
  if (fault.kind === 'huge-attachment') spoilBody(raw, hugeBase64(fault.bytes ?? DEFAULT_HUGE_BYTES));
  if (fault.kind === 'endless') spoilElements(raw, endlessly);
  if (fault.kind === 'repeat') spoilElements(raw, repeatFirst);
  if (fault.kind === 'nul-element') spoilElements(raw, withNulElement);
  if (fault.kind === 'deep-element') spoilElements(raw, withDeepElement);
  if (fault.kind === 'odd-origins')
    spoilElements(raw, withOddOrigins(fault.origin ?? 'Origem', fault.values));
  if (fault.kind === 'foreign-company') {
    // Another company of the group than the ones asked for (the closed branch when the scope is the whole group).
    const other =
      ctx.world.activeCompanies().find((c) => !scope.includes(c)) ??
      ctx.world.companies.find((c) => !c.active)!;
    spoilElements(raw, withForeignCompany(other.block));
  }
}

/** Endpoints whose answer is not a list, so `empty` cannot apply (`company` is an object unless `include_branches=1`). */
function listsData(path: string, q: QueryParams): boolean {
  if (path === '/point/audit') return false;
  return path !== '/company' || q.bool('include_branches') === true;
}

/** The empty answer of a list endpoint: the handler over an empty scope keeps its `meta` (spec 1.3.1). */
function emptyAnswer(
  ctx: EmulatorContext,
  path: string,
  handler: Handler,
  company: CompanyEntity,
  q: QueryParams,
  reply: FastifyReply,
): unknown {
  if (path === '/economic-group') return sendData(reply, 200, []);
  if (path === '/absence/attachment')
    return sendData(reply, 200, [], { absence_id: q.requiredInt('absence_id') });
  return handler(ctx, company, [], q, reply);
}

/** Registers a GET route: token, scope (spec §5, 1.4), a queued fault if one matches, then the handler. */
function get(app: FastifyInstance, ctx: EmulatorContext, path: string, handler: Handler): void {
  app.get(`${PREFIX}${path}`, async (request: FastifyRequest, reply: FastifyReply) => {
    const company = authenticate(ctx, request);
    const q = QueryParams.fromUrl(request.url, ctx.options.listParameterErrorCode);
    const scope = resolveScope(ctx, company, q);
    const applies = (kind: QueuedFault['kind']): boolean => {
      if (LIST_FAULTS.has(kind)) return listsData(path, q);
      if (kind === 'range-exceeded') return q.scalar('begin_date') !== undefined;
      return kind !== 'huge-attachment' || FILE_PATHS.has(path);
    };
    const fault = ctx.faultQueue.take(
      path.slice(1),
      scope.map((c) => c.cnpj),
      applies,
    );
    if (fault?.kind === 'rate-limit') {
      const retryAfter = String(fault.retryAfterSeconds ?? 60);
      throw new ApiFault(429, 'too_many_requests', 'Rate limit exceeded.', undefined, {
        'retry-after': retryAfter,
      });
    }
    if (fault?.kind === 'range-exceeded')
      throw new ApiFault(422, 'date_range_exceeded', 'The period may not exceed 31 days.', null);
    if (fault?.kind === 'refuse') throw new ApiFault(422, 'validation_failed', 'The request was refused.');
    if (fault?.kind === 'corrupt') corruptRequests.add(request.raw);
    if (fault?.kind === 'html') return reply.code(200).type('text/html; charset=utf-8').send(HTML_PAGE);
    if (fault?.kind === 'empty') return emptyAnswer(ctx, path, handler, company, q, reply);
    if (fault?.kind === 'cut') cutRequests.add(request.raw);
    if (fault) markAnswerFault(ctx, request.raw, fault, scope);
    return handler(ctx, company, scope, q, reply);
  });
}

/** Sends the first half of a body, then closes the connection (headers are out, so the client sees a cut body). */
function cutPayload(payload: unknown): Readable {
  const out = new PassThrough();
  const half = (chunk: Buffer): void => {
    out.write(chunk.subarray(0, Math.max(1, Math.floor(chunk.length / 2))));
    // Give the headers and the half body time to leave before the connection is torn down.
    setTimeout(() => out.destroy(new Error('body cut by a queued emulator fault')), 50);
  };
  if (payload instanceof Readable) {
    payload.once('data', (chunk: Buffer | string) => {
      payload.destroy();
      half(Buffer.from(chunk));
    });
  } else {
    half(Buffer.from(typeof payload === 'string' ? payload : String(payload)));
  }
  return out;
}

/**
 * One item per collaborator of the scope that `keep` keeps and that has days within [b, e], in company
 * then id order: its block, then the fields `more` gives (none when null).
 */
function* perCollaborator(
  ctx: EmulatorContext,
  scope: CompanyEntity[],
  [b, e]: [number, number],
  keep: (c: CollaboratorEntity) => boolean,
  more: (c: CollaboratorEntity) => object | null,
): Generator<unknown> {
  for (const co of scope) {
    for (const c of co.collaborators) {
      if (!keep(c) || Math.max(b, ctx.world.firstDay(c)) > Math.min(e, ctx.world.lastDay(c))) continue;
      const fields = more(c);
      if (fields) yield { ...ctx.world.collaboratorBlock(c), ...fields };
    }
  }
}

/** spec 1.3 / 1.4 rule 6: `national_registry_list[]` or `email_list[]`; unpadded CPFs match either way. */
function listFilter(ctx: EmulatorContext, q: QueryParams): (c: CollaboratorEntity) => boolean {
  const cpfs = q.list('national_registry_list');
  const emails = q.list('email_list');
  if (cpfs === undefined && emails === undefined) return () => true;
  const cpfSet = new Set(cpfs ?? []);
  const emailSet = new Set((emails ?? []).map((e) => e.toLowerCase()));
  return (c) =>
    cpfSet.has(c.cpf) ||
    cpfSet.has(ctx.world.sentCpf(c)) ||
    emailSet.has((ctx.world.collaboratorBlock(c).email ?? '').toLowerCase());
}

/** spec 1.4 rule 6: `national_registry` filter of tardiness, adjustment, inconsistency, overtime. */
function cpfFilter(ctx: EmulatorContext, q: QueryParams): (c: CollaboratorEntity) => boolean {
  const cpf = q.scalar('national_registry');
  return cpf === undefined ? () => true : (c) => c.cpf === cpf || ctx.world.sentCpf(c) === cpf;
}

/** A per-day endpoint: one item per collaborator with the entries of its days. */
function perDay({ key, entries }: (typeof DAY_ENTRY_ENDPOINTS)[string]): Handler {
  return (ctx, _company, scope, q, reply) => {
    const keep = cpfFilter(ctx, q);
    const p = q.period('date', ctx.options);
    const list = (c: CollaboratorEntity) => ({
      [key]: [...ctx.history.days(c, p.beginDay, p.endDay)].flatMap((r) => entries(ctx.world, r)),
    });
    return streamList(reply, perCollaborator(ctx, scope, [p.beginDay, p.endDay], keep, list), p.meta);
  };
}

/** Registers every read endpoint of spec 4.1. */
export function registerReadRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.addHook('onSend', async (request, reply, payload) => {
    const spoil = bodySpoilerOf(request.raw);
    if (spoil && reply.statusCode === 200 && payload !== null && payload !== undefined) {
      reply.removeHeader('content-length');
      return spoil(payload as string | Buffer | Readable);
    }
    if (!cutRequests.has(request.raw)) return payload;
    reply.removeHeader('content-length');
    return cutPayload(payload);
  });

  get(app, ctx, '/collaborator', (ctx, _co, scope, _q, reply) => {
    const data = scope.flatMap((co) =>
      co.collaborators.filter((c) => ctx.world.isListed(c)).map((c) => ctx.world.collaboratorBlock(c)),
    );
    return sendData(reply, 200, data);
  });

  get(app, ctx, '/collaborator/totalHours', (ctx, _co, scope, q, reply) => {
    const keep = listFilter(ctx, q);
    const decimal = q.bool('decimal_format') ?? false;
    const p = q.period('date', ctx.options);
    const totals = (c: CollaboratorEntity) => ({
      total_hours: totalsJson(periodTotals(ctx.history, c, p.beginDay, p.endDay), decimal),
    });
    return streamList(reply, perCollaborator(ctx, scope, [p.beginDay, p.endDay], keep, totals), p.meta);
  });

  get(app, ctx, '/point/getFromPeriod', (ctx, _co, scope, q, reply) => {
    const keep = listFilter(ctx, q);
    const decimal = q.bool('decimal_format') ?? false;
    const p = q.period('date', ctx.options);
    const days = (c: CollaboratorEntity) => ({
      days: Array.from(ctx.history.days(c, p.beginDay, p.endDay), (r) => dayJson(ctx.world, r, decimal)),
    });
    return streamList(reply, perCollaborator(ctx, scope, [p.beginDay, p.endDay], keep, days), p.meta);
  });

  get(app, ctx, '/point/audit', (ctx, _co, scope, q, reply) => {
    const pointId = q.requiredInt('point_id');
    const at = ctx.history.locatePoint(pointId);
    if (!at || !scope.includes(at.c.company)) {
      throw new ApiFault(
        404,
        'point_not_found',
        `Point ${pointId} does not exist or belongs to another company.`,
      );
    }
    if (!punchTraits(ctx.world, at.c, at.day, at.punch).audit) {
      throw new ApiFault(404, 'audit_photo_not_found', `Point ${pointId} has no audit photo.`);
    }
    const data = {
      point_id: pointId,
      filename: `auditoria_${pointId}.png`,
      mime_type: 'image/png',
      base64: facePng(at.c.id).toString('base64'),
      company: at.c.company.block,
    };
    return sendData(reply, 200, data, { point_id: pointId });
  });

  for (const [name, endpoint] of Object.entries(DAY_ENTRY_ENDPOINTS))
    get(app, ctx, `/${name}`, perDay(endpoint));

  get(app, ctx, '/overtime', (ctx, _co, scope, q, reply) => {
    const keep = cpfFilter(ctx, q);
    const date = q.requiredDate('date');
    const day = dayOf(date);
    const overtime = (c: CollaboratorEntity) => {
      const b = ctx.history.bank(c, day);
      if (!b) return null;
      const m = b.record.metrics;
      return {
        regime: ctx.world.regimeName(c),
        total_overtime: duration(m.overtime, false),
        missing_hours: duration(m.missing, false),
        interval_hours: duration(m.intervals, false),
        normal_hours: duration(b.record.plan.scheduled ? Math.min(m.ruleWorked, m.sched) : 0, false),
        day_balance: duration(b.dayBalance, false),
        accumulated_balance: duration(b.accumulated, false),
        credit: duration(b.credit, false),
        debt: duration(b.debt, false),
      };
    };
    return streamList(reply, perCollaborator(ctx, scope, [day, day], keep, overtime), { date });
  });

  get(app, ctx, '/absence/types', (ctx, _co, scope, _q, reply) =>
    sendData(
      reply,
      200,
      scope.flatMap((co) => ctx.world.absenceTypes(co).map((t) => absenceTypeJson(t, co.block))),
    ),
  );

  get(app, ctx, '/absence/getFromPeriod', (ctx, _co, scope, q, reply) => {
    const p = q.period('datetime', ctx.options);
    const items = function* () {
      for (const co of scope) {
        for (const a of ctx.history.absencesOverlapping(co, p.beginDay, p.beginSec, p.endDay, p.endSec))
          yield absenceJson(ctx.world, a);
      }
    };
    return streamList(reply, items(), p.meta);
  });

  get(app, ctx, '/absence/attachment', (ctx, _co, scope, q, reply) => {
    const absenceId = q.requiredInt('absence_id');
    const a = ctx.history.absenceById(absenceId);
    if (!a || !scope.includes(a.company)) {
      throw new ApiFault(
        404,
        'not_found',
        `Absence ${absenceId} does not exist or belongs to another company.`,
      );
    }
    const data = a.attachments.map((f) => ({
      filename: f.filename,
      mime_type: f.mimeType,
      base64: f.content().toString('base64'),
      company: a.company.block,
    }));
    return sendData(reply, 200, data, { absence_id: absenceId });
  });

  get(app, ctx, '/company', (ctx, company, scope, q, reply) => {
    // spec 4.1: an array whenever include_branches=1 (restricted by a CNPJ, an array of one).
    const asList = q.bool('include_branches') === true;
    return sendData(
      reply,
      200,
      asList ? scope.map((c) => ctx.world.companyRecord(c)) : ctx.world.companyRecord(scope[0] ?? company),
    );
  });

  get(app, ctx, '/economic-group', (ctx, company, _scope, q, reply) => {
    // spec 4.1: a headquarters token sees the whole active group; a branch only itself.
    const group =
      q.scalar('company_national_registry') !== undefined
        ? _scope
        : company.isHeadquarter
          ? ctx.world.activeCompanies()
          : [company];
    const data = group.map((c) => ({
      name: c.record.name,
      trading_name: c.record.trading_name,
      national_registry: c.cnpj,
      is_headquarter: c.isHeadquarter,
    }));
    return sendData(reply, 200, data);
  });

  for (const { endpoint, table, label } of LOOKUP_LISTS) {
    // spec 2.4 records, each with the `company` block of spec 1.4 rule 4.
    const json = (r: LookupEntity, co: CompanyEntity) => ({ id: r.id, [label]: r.label, company: co.block });
    get(app, ctx, `/${endpoint}`, (ctx, _co, scope, _q, reply) =>
      sendData(
        reply,
        200,
        scope.flatMap((co) => ctx.world.listedLookups(co, table).map((r) => json(r, co))),
      ),
    );
  }
}
