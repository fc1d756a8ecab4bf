/**
 * Absences and vacations of one company for one month (spec 2.5), generated from the seed.
 * Ids encode the month and company, so any absence can be found again from its id alone.
 */
import { dateOf, monthEnd, monthStart, weekday } from './calendar.js';
import { GLOBAL_ABSENCE_TYPES } from './absence-types.js';
import { employmentEnd } from './entities.js';
import type {
  AbsenceEntity,
  AbsenceTypeEntity,
  AttachmentEntity,
  CollaboratorEntity,
  CompanyEntity,
} from './entities.js';
import { textPdf, scanPng } from './attachments.js';
import { CIDS, DOCTORS, HEALTH_UNITS } from './names.js';
import { rngFor } from './random.js';
import { isScheduledDay } from './day-plan.js';
import type { World } from './world.js';

/** Slots in absence ids: companies per month, absences per company-month. */
const COMPANY_SLOTS = 16;
const SEQ_SLOTS = 10_000;

/** What the generator needs to know about the world. */
type AbsenceWorld = Pick<World, 'base' | 'fromDay' | 'todayDay' | 'firstMonth' | 'journeyOf'>;

/** Absence id of the `seq`-th absence generated for a company in a month. */
function absenceId(world: AbsenceWorld, companyIndex: number, month: number, seq: number): number {
  return 1 + ((month - world.firstMonth) * COMPANY_SLOTS + companyIndex) * SEQ_SLOTS + seq;
}

/** Inverse of {@link absenceId}; null when the id cannot be a generated one. */
export function decodeAbsenceId(
  world: AbsenceWorld,
  id: number,
): { companyIndex: number; month: number; seq: number } | null {
  if (!Number.isSafeInteger(id) || id < 1) return null;
  const x = id - 1;
  const seq = x % SEQ_SLOTS;
  const y = Math.floor(x / SEQ_SLOTS);
  return { companyIndex: y % COMPANY_SLOTS, month: Math.floor(y / COMPANY_SLOTS) + world.firstMonth, seq };
}

const type = (kind: AbsenceTypeEntity['kind']): AbsenceTypeEntity =>
  GLOBAL_ABSENCE_TYPES.find((t) => t.kind === kind)!;

/** What a generator call says of an absence; the rest has defaults. */
type NewAbsence = Partial<AbsenceEntity> & Pick<AbsenceEntity, 'type' | 'details' | 'beginDay' | 'endDay'>;

const SINGLE_DAY_DETAILS = {
  unpaid: 'Assuntos particulares',
  comp_off: 'Compensação de horas do banco',
  donation: 'Declaração do hemocentro',
};

/** Generates the absences starting in `month` for a company. */
export function generateMonthAbsences(
  world: AbsenceWorld,
  company: CompanyEntity,
  month: number,
): AbsenceEntity[] {
  const first = monthStart(month);
  const days = monthEnd(month) - first + 1;
  if (month < world.firstMonth) return [];
  const out: AbsenceEntity[] = [];
  let seq = 0;
  // Unless told otherwise: a paid full day without certificate or attachment.
  const add = (ids: number[], a: NewAbsence): void => {
    if (seq >= SEQ_SLOTS) return;
    out.push({
      description: a.type.description,
      beginSec: 0,
      endSec: 86399,
      fullDay: true,
      paid: true,
      sumOnWorkTime: true,
      sumTotalOnWorkTime: true,
      crRegister: '',
      professionalName: '',
      healthUnit: '',
      cidDescription: '',
      cid: [],
      attachments: [],
      ...a,
      collaboratorIds: ids,
      id: absenceId(world, company.index, month, seq++),
      company,
    });
  };
  const employedOn = (c: CollaboratorEntity, from: number, to: number): boolean =>
    c.generated && c.beginDay <= from && employmentEnd(c) >= to && from >= world.fromDay;

  for (const c of company.collaborators) {
    if (!c.generated) continue;
    const [year, monthOfYear] = [1970 + Math.floor(month / 12), month % 12];
    // Vacations: once a year, 10 to 30 days, at least six months after admission.
    const rv = rngFor(world.base, c.id, year, 77);
    if (rv.int(12) === monthOfYear) {
      const start = first + rv.int(28);
      const len = rv.pick([10, 15, 20, 30]);
      if (employedOn(c, start, start + len - 1) && start - c.beginDay >= 180) {
        const details = `Férias do período aquisitivo ${year - 1}/${year} (${len} dias)`;
        add([c.id], { type: type('vacation'), details, beginDay: start, endDay: start + len - 1 });
      }
    }
    const r = rngFor(world.base, c.id, month, 78);
    // Medical certificates: past days only, some with the certificate attached.
    if (r.chance(0.07)) {
      const start = first + r.int(days);
      const len = r.range(1, 3);
      const [code, desc] = r.pick(CIDS);
      const id = absenceId(world, company.index, month, seq);
      const doctor = r.pick(DOCTORS);
      const attachments: AttachmentEntity[] = [];
      if (r.chance(0.6)) {
        const leave = `Afastamento: ${len} dia(s) a partir de ${dateOf(start)}`;
        attachments.push({
          filename: `atestado_${id}.pdf`,
          mimeType: 'application/pdf',
          content: () => textPdf(['ATESTADO MEDICO', `Paciente: ${c.name}`, leave, `CID: ${code}`, doctor]),
        });
        if (r.chance(0.3))
          attachments.push({
            filename: `atestado_${id}_verso.png`,
            mimeType: 'image/png',
            content: () => scanPng(id),
          });
      }
      if (start + len - 1 < world.todayDay && employedOn(c, start, start + len - 1)) {
        add([c.id], {
          type: type('medical'),
          details: `Afastamento por ${len} dia(s)`,
          beginDay: start,
          endDay: start + len - 1,
          crRegister: `CRM-${company.city.state} ${r.range(10000, 199999)}`,
          professionalName: doctor,
          healthUnit: r.pick(HEALTH_UNITS),
          cidDescription: desc,
          cid: [code],
          attachments,
        });
      }
    }
    // Partial-day consultations: the last three hours of a scheduled day.
    if (r.chance(0.04)) {
      const day = first + r.int(days);
      const j = world.journeyOf(c);
      const end = j.startSec + j.workSec + j.breakSec;
      if (day < world.todayDay && isScheduledDay(j, day) && employedOn(c, day, day) && j.workSec > 4 * 3600) {
        const hours = { beginDay: day, endDay: day, beginSec: end - 3 * 3600, endSec: end, fullDay: false };
        add([c.id], { type: type('consult'), details: 'Consulta agendada', ...hours });
      }
    }
    // Single days: unpaid justified absence, compensatory day off, blood donation.
    const single = r.next();
    const kind =
      single < 0.015
        ? 'unpaid'
        : single < 0.035 && c.regime !== 'HE'
          ? 'comp_off'
          : single < 0.04
            ? 'donation'
            : null;
    if (kind) {
      const day = first + r.int(days);
      const t = kind === 'donation' ? company.lookups.absenceTypes[0]! : type(kind);
      if (day < world.todayDay + 30 && weekday(day) !== 0 && employedOn(c, day, day)) {
        const paid = { paid: t.paidLeave, sumOnWorkTime: t.paidLeave, sumTotalOnWorkTime: t.paidLeave };
        add([c.id], { type: t, details: SINGLE_DAY_DETAILS[kind], beginDay: day, endDay: day, ...paid });
      }
    }
  }

  // Trainings for several collaborators at once.
  const rg = rngFor(world.base, 5000 + company.index, month, 79);
  if (rg.chance(0.5)) {
    const start = first + rg.int(days - 2);
    const len = rg.range(1, 2);
    const eligible = company.collaborators.filter((c) => employedOn(c, start, start + len - 1));
    if (eligible.length >= 2) {
      const n = Math.min(eligible.length, rg.range(2, 4));
      const picked = new Set<number>();
      while (picked.size < n) picked.add(eligible[rg.int(eligible.length)]!.id);
      const id = absenceId(world, company.index, month, seq);
      const topic = rg.pick([
        'Treinamento NR-35 (trabalho em altura)',
        'Curso de atendimento ao cliente',
        'Integração de segurança do trabalho',
      ]);
      const list = { filename: `lista_presenca_${id}.pdf`, mimeType: 'application/pdf' };
      const content = (): Buffer => textPdf(['LISTA DE PRESENCA', topic, `Data: ${dateOf(start)}`]);
      add(
        [...picked].sort((a, b) => a - b),
        {
          type: type('training'),
          details: topic,
          beginDay: start,
          endDay: start + len - 1,
          attachments: rg.chance(0.5) ? [{ ...list, content }] : [],
        },
      );
    }
  }
  return out;
}
