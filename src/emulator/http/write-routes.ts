/** The 9 write endpoints of spec 4.2, on the token's company only (spec 1.4 rule 2). */
import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Multipart } from '@fastify/multipart';
import { isValidCpf, padCpf } from '../../util/national-registry.js';
import { utcToLocal } from '../../util/time.js';
import { dayOf } from '../calendar.js';
import type { CollaboratorEntity, CompanyEntity, LookupEntity } from '../entities.js';
import { ApiFault, badListSyntax, invalidField } from '../errors.js';
import { imageSize, looksLikeImage } from '../attachments.js';
import { authenticate, sendData, type EmulatorContext } from './context.js';
import { bool, date, dateTime, int, jsonObject, requireFields, str, type RawFields } from './body-fields.js';
import { checkListValue } from './query-params.js';
import { PREFIX } from './read-routes.js';

type WriteHandler = (
  ctx: EmulatorContext,
  company: CompanyEntity,
  request: FastifyRequest,
  reply: FastifyReply,
) => unknown;

function route(
  app: FastifyInstance,
  ctx: EmulatorContext,
  method: 'POST' | 'PUT',
  path: string,
  handler: WriteHandler,
): void {
  app.route({
    method,
    url: `${PREFIX}${path}`,
    handler: async (request, reply) => handler(ctx, authenticate(ctx, request), request, reply),
  });
}

/** The emulator's "now" as a local date-time: the end of the pinned day, or the Brasília wall clock. */
function nowLocal(ctx: EmulatorContext): string {
  return ctx.options.pinned
    ? `${ctx.options.today} 23:59:59`
    : utcToLocal(new Date(ctx.options.now()), 'America/Sao_Paulo');
}

/** spec 4.2: a referenced id must be an active record of the token's company (404 `<field>_not_found`). */
function checkActive(list: readonly LookupEntity[], id: number | undefined, field: string): void {
  if (id === undefined || list.some((r) => r.id === id && r.active)) return;
  const code = field.replace(/_id$/, '_not_found');
  throw new ApiFault(404, code, `The ${field} ${id} does not exist or belongs to another company.`);
}

/** The lookup creations of spec 4.2: route, list, label field, and the 422 code of a bad label. */
const LOOKUP_CREATIONS = [
  ['/department', 'departments', 'description', 'validation_failed'],
  ['/occupation', 'occupations', 'description', 'invalid_request_payload'],
  ['/fired-type', 'firedTypes', 'name', 'validation_failed'],
  ['/cost-center', 'costCenters', 'name', 'invalid_request_payload'],
] as const;

/** The record a CPF designates in a company: the active one when the CPF is duplicated (spec §3). */
function byCpf(
  company: CompanyEntity,
  cpf: string,
): { active?: CollaboratorEntity; any?: CollaboratorEntity } {
  const all = company.collaborators.filter((c) => c.cpf === cpf);
  return { active: all.find((c) => c.dismissalDay === null), any: all[all.length - 1] };
}

/** A description or name of a lookup creation: 422 with the code the spec gives for that endpoint. */
function labelField(
  fields: RawFields,
  name: string,
  code: 'validation_failed' | 'invalid_request_payload',
): string {
  const v = fields[name];
  if (typeof v === 'string' && v.trim() !== '') return v.trim();
  const missing = v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
  const message = missing ? `The field ${name} is required.` : `The field ${name} must be a string.`;
  throw new ApiFault(422, code, message, missing ? [name] : undefined);
}

/** Registers every write endpoint of spec 4.2. */
export function registerWriteRoutes(app: FastifyInstance, ctx: EmulatorContext): void {
  route(app, ctx, 'POST', '/collaborator', (ctx, company, request, reply) => {
    const f = jsonObject(request.body);
    requireFields(f, [
      'name',
      'national_registry',
      'email',
      'birth_date',
      'begin_date',
      'journey_id',
      'cost_center_id',
      'department_id',
      'unit_id',
      'collaborator_settings_id',
      'point_rule_id',
    ]);
    const name = str(f, 'name')!;
    const cpf = str(f, 'national_registry')!;
    if (!isValidCpf(cpf)) throw invalidField('national_registry', 'must be a valid CPF of 11 digits');
    const email = str(f, 'email')!;
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email))
      throw invalidField('email', 'must be a valid e-mail address');
    const birthDate = date(f, 'birth_date')!;
    const beginDate = date(f, 'begin_date')!;
    const admissionDate = date(f, 'admission_date') ?? beginDate;
    const registration = str(f, 'registration_number');
    const pis = str(f, 'pis');
    if (pis !== undefined && !/^\d{11}$/.test(pis)) throw invalidField('pis', 'must have 11 digits');
    const L = company.lookups;
    const refs = {
      journey_id: L.journeys,
      cost_center_id: L.costCenters,
      department_id: L.departments,
      unit_id: L.units,
      collaborator_settings_id: L.settings,
      point_rule_id: L.pointRules,
      occupation_id: L.occupations,
    };
    const ids = Object.fromEntries(Object.keys(refs).map((field) => [field, int(f, field)]));
    for (const [field, list] of Object.entries(refs)) checkActive(list, ids[field], field);
    if (byCpf(company, cpf).active) {
      throw new ApiFault(
        422,
        'collaborator_already_exists',
        `An active collaborator with national_registry ${cpf} already exists in the company.`,
      );
    }
    const id = ctx.world.nextCollaboratorId++;
    const c: CollaboratorEntity = {
      id,
      company,
      cpf,
      name,
      email,
      registrationNumber: registration ?? String(900000 + id),
      pis: pis ?? '',
      birthDate,
      admissionDate,
      beginDay: dayOf(beginDate),
      dismissalDay: null,
      inactiveFromDay: null,
      departmentId: ids.department_id!,
      occupationId: ids.occupation_id ?? null,
      unitId: ids.unit_id!,
      journeyId: ids.journey_id!,
      costCenterId: ids.cost_center_id!,
      settingsId: ids.collaborator_settings_id!,
      pointRuleId: ids.point_rule_id!,
      team: null,
      regime: 'BH',
      initialBalanceSec: 0,
      originPref: 0,
      generated: false,
      overrides: {},
      hasFacePhoto: false,
    };
    ctx.world.addCollaborator(c);
    return sendData(reply, 201, { id });
  });

  route(app, ctx, 'POST', '/collaborator/photo', (ctx, company, request, reply) => {
    const f = jsonObject(request.body);
    requireFields(f, ['national_registry', 'photo_base64']);
    // spec 4.2 / §8: leading zeros are filled in up to 11 characters.
    const cpf = padCpf(str(f, 'national_registry')!);
    if (!ctx.world.companies.some((co) => co.collaborators.some((c) => c.cpf === cpf))) {
      throw new ApiFault(404, 'cpf_not_found', `CPF ${cpf} is not registered.`);
    }
    const { active, any } = byCpf(company, cpf);
    if (!any)
      throw new ApiFault(404, 'collaborator_not_found', `CPF ${cpf} has no collaborator in this company.`);
    if (!active)
      throw new ApiFault(422, 'collaborator_fired', `The collaborator with CPF ${cpf} is dismissed.`);
    const photo = str(f, 'photo_base64')!;
    if (photo.startsWith('data:'))
      throw new ApiFault(403, 'invalid_photo', 'Send the image without a data:image/... prefix.');
    const clean = photo.replace(/\s+/g, '');
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(clean) || clean.length % 4 === 1)
      throw new ApiFault(403, 'invalid_photo', 'photo_base64 is not valid base64.');
    const bytes = Buffer.from(clean, 'base64');
    if (!looksLikeImage(bytes))
      throw new ApiFault(403, 'invalid_photo', 'The photo must be a JPEG or PNG image.');
    const size = imageSize(bytes);
    if (!size) throw new ApiFault(403, 'face_recognition_failed', 'The facial photo could not be processed.');
    if (size.width < 64 || size.height < 64)
      throw new ApiFault(403, 'invalid_photo', 'No face found: the image is too small (at least 64×64).');
    active.hasFacePhoto = true;
    return sendData(reply, 200, { success: true });
  });

  route(app, ctx, 'PUT', '/collaborator/dismissal', (ctx, company, request, reply) => {
    const f = jsonObject(request.body);
    const idFields = ['collaborator_id', 'registration_number', 'national_registry'];
    const missing = ['dismissal_date', 'fired_type_id'].filter(
      (n) => f[n] === undefined || f[n] === null || f[n] === '',
    );
    if (idFields.every((n) => f[n] === undefined || f[n] === null || f[n] === '')) missing.push(...idFields);
    if (missing.length > 0) requireFields(f, missing);
    const dismissalDate = date(f, 'dismissal_date')!;
    const firedTypeId = int(f, 'fired_type_id')!;
    const collaboratorId = int(f, 'collaborator_id');
    const registration = str(f, 'registration_number');
    const cpf = str(f, 'national_registry');
    // The first identifier that names a record wins: id, then registration, then CPF.
    const own = company.collaborators;
    const registered = (x: CollaboratorEntity): boolean =>
      registration !== undefined && ctx.world.collaboratorBlock(x).registration_number === registration;
    const named = cpf === undefined ? {} : byCpf(company, cpf);
    const c = own.find((x) => x.id === collaboratorId) ?? own.find(registered) ?? named.active ?? named.any;
    if (!c)
      throw new ApiFault(
        404,
        'collaborator_not_found',
        'No collaborator of the company matches the identifiers sent.',
      );
    if (!company.lookups.firedTypes.some((t) => t.id === firedTypeId)) {
      throw new ApiFault(404, 'fired_type_not_found', `Dismissal type ${firedTypeId} does not exist.`);
    }
    if (dismissalDate < c.admissionDate) {
      throw new ApiFault(
        422,
        'dismissal_date_before_admission_date',
        `The dismissal date ${dismissalDate} is before the admission date ${c.admissionDate}.`,
      );
    }
    c.dismissalDay = dayOf(dismissalDate);
    ctx.history.invalidate(c);
    return sendData(reply, 200, { success: true });
  });

  route(app, ctx, 'POST', '/point', (ctx, company, request, reply) => {
    const f = jsonObject(request.body);
    requireFields(f, ['national_registry', 'datetime']);
    const cpf = str(f, 'national_registry')!;
    const datetime = dateTime(f, 'datetime')!;
    const all = company.collaborators.filter((c) => c.cpf === cpf);
    if (all.length === 0)
      throw new ApiFault(404, 'cpf_not_found', `CPF ${cpf} is not registered in this company.`);
    const notDismissed = all.filter((c) => c.dismissalDay === null);
    if (notDismissed.length === 0)
      throw new ApiFault(422, 'collaborator_fired', `The collaborator with CPF ${cpf} is dismissed.`);
    const c = notDismissed.find((x) => ctx.world.isListed(x));
    if (!c)
      throw new ApiFault(404, 'collaborator_not_found', `The collaborator with CPF ${cpf} is inactive.`);
    if (datetime > nowLocal(ctx))
      throw new ApiFault(422, 'date_time_greater_than_now', `The datetime ${datetime} is in the future.`);
    if (datetime.slice(0, 10) < c.admissionDate) {
      throw new ApiFault(
        422,
        'date_begin_less_than_now',
        `The datetime ${datetime} is before the admission date ${c.admissionDate}.`,
      );
    }
    const [h, m, s] = datetime.slice(11).split(':').map(Number) as [number, number, number];
    const pointId = ctx.history.addApiPunch(c, dayOf(datetime.slice(0, 10)), h * 3600 + m * 60 + s);
    // spec 4.2: the receipt is a SHA-256 hash of the punch.
    const hash = createHash('sha256').update(`${company.cnpj}|${cpf}|${datetime}|${pointId}`).digest('hex');
    return sendData(reply, 201, { point_id: pointId, hash });
  });

  route(app, ctx, 'POST', '/absence', async (ctx, company, request, reply) => {
    if (!request.isMultipart()) {
      throw new ApiFault(400, 'bad_request', 'POST absence takes multipart/form-data (spec §1).');
    }
    const values: Record<string, string[]> = {};
    const files: { filename: string; mimeType: string; content: Buffer }[] = [];
    for await (const part of request.parts() as AsyncIterable<Multipart>) {
      const name = part.fieldname;
      // spec 1.3 rule 5: the same list rule holds in multipart forms.
      if (
        name === 'national_registry' ||
        name === 'attachment' ||
        /^(national_registry|attachment)\[.+\]$/.test(name)
      ) {
        throw badListSyntax(
          ctx.options.listParameterErrorCode,
          `The list field ${name.replace(/\[.*$/, '')} must be sent as ${name.replace(/\[.*$/, '')}[] repeated once per item (spec 1.3).`,
        );
      }
      if (part.type === 'file') {
        const content = await part.toBuffer();
        if (name !== 'attachment[]') continue;
        files.push({ filename: part.filename, mimeType: part.mimetype, content });
      } else {
        (values[name] ??= []).push(String(part.value));
      }
    }
    const cpfs = (values['national_registry[]'] ?? []).filter((v) => v !== '');
    for (const v of cpfs) checkListValue('national_registry', v, ctx.options.listParameterErrorCode);
    const f: RawFields = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, v[v.length - 1]]));
    f.national_registry = cpfs.length > 0 ? cpfs : undefined;
    requireFields(f, [
      'national_registry',
      'absence_type_id',
      'description',
      'details',
      'begin_date',
      'end_date',
      'paid',
      'full_day',
      'sum_on_work_time',
      'sum_total_on_work_time',
    ]);
    const typeId = int(f, 'absence_type_id')!;
    const description = str(f, 'description')!;
    const details = str(f, 'details')!;
    const begin = date(f, 'begin_date')!;
    const end = date(f, 'end_date')!;
    if (end < begin) throw invalidField('end_date', 'must be a date after or equal to begin_date');
    const paid = bool(f, 'paid')!;
    const fullDay = bool(f, 'full_day')!;
    const sumOnWorkTime = bool(f, 'sum_on_work_time')!;
    const sumTotalOnWorkTime = bool(f, 'sum_total_on_work_time')!;
    const type = ctx.world.absenceTypes(company).find((t) => t.id === typeId);
    if (!type) throw new ApiFault(404, 'absence_type_not_found', `Absence type ${typeId} does not exist.`);
    const collaboratorIds: number[] = [];
    for (const cpf of cpfs) {
      const { active, any } = byCpf(company, cpf);
      const c = active ?? any;
      if (!c) throw new ApiFault(404, 'cpf_not_found', `CPF ${cpf} is not registered in this company.`);
      if (!collaboratorIds.includes(c.id)) collaboratorIds.push(c.id);
    }
    const id = ctx.history.addApiAbsence({
      company,
      type,
      description,
      details,
      beginDay: dayOf(begin),
      endDay: dayOf(end),
      beginSec: 0,
      endSec: 86399,
      fullDay,
      paid,
      sumOnWorkTime,
      sumTotalOnWorkTime,
      crRegister: '',
      professionalName: '',
      healthUnit: '',
      cidDescription: '',
      cid: [],
      attachments: files.map((x) => ({
        filename: x.filename,
        mimeType: x.mimeType,
        content: () => x.content,
      })),
      collaboratorIds,
    });
    return sendData(reply, 201, { absence_id: id });
  });

  for (const [path, kind, field, code] of LOOKUP_CREATIONS) {
    route(app, ctx, 'POST', path, (ctx, company, request, reply) => {
      const f = jsonObject(request.body);
      const label = labelField(f, field, code);
      const extra = kind === 'occupations' ? { cbo: str(f, 'number_cbo') ?? null } : {};
      const id = ctx.world.lookupCounters[kind]++;
      const list: LookupEntity[] = company.lookups[kind];
      list.push({ id, label, active: true, ...extra });
      return sendData(reply, 201, { id });
    });
  }
}
