/**
 * The admin surface under `/__emulator/` (docs/emulator.md "Admin surface"), needing no token: tokens,
 * statistics, faults, and mutations that change the source behind the sync's back.
 */
import type { FastifyInstance } from 'fastify';
import { dayOf } from '../calendar.js';
import type { CollaboratorEntity, CollaboratorOverrides } from '../entities.js';
import { ApiFault } from '../errors.js';
import { EmulatorOptionError, mergeFaults } from '../options.js';
import { checkQueuedFault } from '../queued-faults.js';
import { sendData, type EmulatorContext } from './context.js';
import { date, dateTime, int, jsonObject, requireFields, str } from './body-fields.js';

/** Prefix of the admin routes. */
const ADMIN_PREFIX = '/__emulator';

const OVERRIDABLE = [
  'name',
  'email',
  'registration_number',
  'occupation',
  'department',
  'team',
  'business_unit',
  'pis',
] as const;

/** The record of a CPF in a company that a mutation changes: the active one, else the latest. */
function target(ctx: EmulatorContext, cnpj: string, cpf: string): CollaboratorEntity {
  const company = ctx.world.companyByCnpj(cnpj);
  if (!company) throw new ApiFault(404, 'company_not_found', `No company ${cnpj} in the emulator.`);
  const all = company.collaborators.filter((c) => c.cpf === cpf);
  const c = all.find((x) => x.dismissalDay === null) ?? all[all.length - 1];
  if (!c)
    throw new ApiFault(404, 'collaborator_not_found', `No collaborator with CPF ${cpf} in company ${cnpj}.`);
  return c;
}

/** Runs a change of the faults; a bad value is a 400 with the option error's message. */
function asBadRequest(change: () => void): void {
  try {
    change();
  } catch (err) {
    if (err instanceof EmulatorOptionError) throw new ApiFault(400, 'bad_request', err.message);
    throw err;
  }
}

/** Registers the admin routes. */
export function registerAdminRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  app.get(`${ADMIN_PREFIX}/companies`, async (_req, reply) =>
    reply.send(
      ctx.world
        .activeCompanies()
        .map((c) => ({ cnpj: c.cnpj, name: c.record.name, token: c.token, is_headquarter: c.isHeadquarter })),
    ),
  );

  app.get(`${ADMIN_PREFIX}/stats`, async (_req, reply) => reply.send(ctx.traffic.snapshot()));
  app.post(`${ADMIN_PREFIX}/stats/reset`, async (_req, reply) => {
    ctx.traffic.reset();
    return reply.send({ success: true });
  });

  app.get(`${ADMIN_PREFIX}/faults`, async (_req, reply) => reply.send(ctx.traffic.getFaults()));
  app.post(`${ADMIN_PREFIX}/faults`, async (req, reply) => {
    asBadRequest(() => ctx.traffic.setFaults(mergeFaults(ctx.traffic.getFaults(), req.body ?? {})));
    return reply.send(ctx.traffic.getFaults());
  });

  app.get(`${ADMIN_PREFIX}/faults/next`, async (_req, reply) => reply.send(ctx.faultQueue.list()));
  app.post(`${ADMIN_PREFIX}/faults/next`, async (req, reply) => {
    asBadRequest(() => ctx.faultQueue.push(checkQueuedFault(req.body ?? {})));
    return reply.send(ctx.faultQueue.list());
  });
  app.post(`${ADMIN_PREFIX}/faults/next/clear`, async (_req, reply) => {
    ctx.faultQueue.clear();
    return reply.send([]);
  });

  for (const action of ['revoke', 'restore'] as const) {
    app.post(`${ADMIN_PREFIX}/tokens/${action}`, async (req, reply) => {
      const f = jsonObject(req.body);
      requireFields(f, ['cnpj']);
      const cnpj = str(f, 'cnpj')!;
      if (!ctx.world.companyByCnpj(cnpj))
        throw new ApiFault(404, 'company_not_found', `No company ${cnpj} in the emulator.`);
      if (action === 'revoke') ctx.world.revoked.add(cnpj);
      else ctx.world.revoked.delete(cnpj);
      return sendData(reply, 200, { success: true, cnpj, revoked: ctx.world.revoked.has(cnpj) });
    });
  }

  app.post(`${ADMIN_PREFIX}/mutations/delete-punch`, async (req, reply) => {
    const f = jsonObject(req.body);
    requireFields(f, ['point_id']);
    const id = int(f, 'point_id')!;
    if (!ctx.history.deletePunch(id))
      throw new ApiFault(404, 'point_not_found', `Point ${id} does not exist.`);
    return sendData(reply, 200, { success: true });
  });

  app.post(`${ADMIN_PREFIX}/mutations/adjust-punch`, async (req, reply) => {
    const f = jsonObject(req.body);
    requireFields(f, ['point_id', 'datetime']);
    const id = int(f, 'point_id')!;
    const datetime = dateTime(f, 'datetime')!;
    const at = ctx.history.locatePoint(id);
    if (!at) throw new ApiFault(404, 'point_not_found', `Point ${id} does not exist.`);
    if (dayOf(datetime.slice(0, 10)) !== at.day)
      throw new ApiFault(422, 'validation_failed', 'A punch can only be moved within its own day.');
    const [h, m, s] = datetime.slice(11).split(':').map(Number) as [number, number, number];
    ctx.history.movePunch(
      id,
      h * 3600 + m * 60 + s,
      str(f, 'reason') ?? 'Ajuste solicitado pelo colaborador',
      str(f, 'adjusted_by') ?? 'Administrador',
    );
    return sendData(reply, 200, { success: true });
  });

  app.post(`${ADMIN_PREFIX}/mutations/update-collaborator`, async (req, reply) => {
    const f = jsonObject(req.body);
    requireFields(f, ['cnpj', 'cpf']);
    const c = target(ctx, str(f, 'cnpj')!, str(f, 'cpf')!);
    const changes: CollaboratorOverrides = {};
    for (const key of OVERRIDABLE) {
      if (!(key in f)) continue;
      const v = f[key];
      if (key === 'team' && v === null) changes.team = null;
      else if (typeof v === 'string') changes[key] = v;
      else
        throw new ApiFault(
          422,
          'validation_failed',
          `The field ${key} must be a string${key === 'team' ? ' or null' : ''}.`,
        );
    }
    if (Object.keys(changes).length === 0) {
      throw new ApiFault(422, 'validation_failed', `Send at least one of: ${OVERRIDABLE.join(', ')}.`);
    }
    Object.assign(c.overrides, changes);
    return sendData(reply, 200, { success: true, collaborator: ctx.world.collaboratorBlock(c) });
  });

  app.post(`${ADMIN_PREFIX}/mutations/dismiss`, async (req, reply) => {
    const f = jsonObject(req.body);
    requireFields(f, ['cnpj', 'cpf', 'date']);
    const c = target(ctx, str(f, 'cnpj')!, str(f, 'cpf')!);
    c.dismissalDay = dayOf(date(f, 'date')!);
    ctx.history.invalidate(c);
    return sendData(reply, 200, { success: true });
  });
}
