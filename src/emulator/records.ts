/** Builders of the JSON records of spec §2, in the key order of the spec tables (equal data, equal bytes). */
import { TOTAL_HOURS_KEYS, type CompanyBlock, type TotalHoursKey } from '../api/schemas.js';
import { secondsToDuration, secondsToHourMinute } from '../util/duration.js';
import { clockOf, dateOf, dateTimeOf, hourMinuteOf } from './calendar.js';
import { INTRA_BREAK, MARK_TOLERANCE, nightReduced, OVERTIME_LIMIT, type DayMetrics } from './day-metrics.js';
import type { AbsenceEntity, AbsenceTypeEntity, CollaboratorEntity } from './entities.js';
import { phantomSeconds } from './contradictions.js';
import type { DayRecord, EffectivePunch, History } from './history.js';
import { MANAGERS } from './names.js';
import { EXTRA_FIELDS, NEW_ENUM_VALUES } from './quirks.js';
import { rngFor } from './random.js';
import type { SentCollaboratorBlock, World } from './world.js';

/** A duration as spec 1.2 sends it: `[-]HH:MM:SS`, or hours as a number with `decimal_format=1`. */
export function duration(seconds: number, decimal: boolean): string | number {
  if (!decimal) return secondsToDuration(seconds);
  const v = Math.round(seconds / 36) / 100;
  return v === 0 ? 0 : v;
}

/** Origins by preference index of the roster. */
const ORIGINS = ['App Mobile', 'REP', 'Web'] as const;

/**
 * Where and how a punch was made (spec 2.12), from the seed: origin (the spec's five, or the sixth of
 * quirk `newEnums`), method, geolocation, and whether it has an audit photo.
 */
export function punchTraits(world: World, c: CollaboratorEntity, day: number, p: EffectivePunch) {
  const unit = world.unitOf(c);
  if (p.api)
    return { origin: 'API', method: 'Integração', accuracy: 0, lat: unit.lat, lng: unit.lng, audit: false };
  if (p.manual)
    return {
      origin: 'Manual',
      method: 'Inclusão manual',
      accuracy: 0,
      lat: unit.lat,
      lng: unit.lng,
      audit: false,
    };
  // Quirk newEnums: one punch in twenty comes from a kiosk, an origin the spec does not list.
  if (world.options.quirks.newEnums && rngFor(world.base, c.id, day, 90 + p.slot).chance(0.05)) {
    return {
      origin: NEW_ENUM_VALUES.origin,
      method: NEW_ENUM_VALUES.method,
      accuracy: 5,
      lat: unit.lat,
      lng: unit.lng,
      audit: false,
    };
  }
  const r = rngFor(world.base, c.id, day, 50 + p.slot);
  const origin = r.chance(0.9) ? ORIGINS[c.originPref]! : r.pick(ORIGINS);
  if (origin === 'App Mobile') {
    const facial = r.chance(0.75);
    const jitter = (): number => Math.round((r.next() - 0.5) * 0.0016 * 1e6) / 1e6;
    return {
      origin,
      method: facial ? 'Reconhecimento facial' : 'Geolocalização',
      accuracy: r.range(4, 80),
      lat: Math.round((unit.lat + jitter()) * 1e6) / 1e6,
      lng: Math.round((unit.lng + jitter()) * 1e6) / 1e6,
      audit: facial,
    };
  }
  if (origin === 'REP')
    return {
      origin,
      method: r.chance(0.7) ? 'Biometria' : 'Cartão de proximidade',
      accuracy: 0,
      lat: unit.lat,
      lng: unit.lng,
      audit: false,
    };
  return {
    origin,
    method: 'Login e senha',
    accuracy: r.range(20, 1500),
    lat: unit.lat,
    lng: unit.lng,
    audit: false,
  };
}

/** Quirk `nulls`: punches of physical clocks and those entered by a manager carry no GPS. */
export function isGeolocated(world: World, t: ReturnType<typeof punchTraits>): boolean {
  return !(world.options.quirks.nulls && (t.origin === 'REP' || t.origin === 'Manual'));
}

/** spec 2.12 point object. */
function pointJson(
  world: World,
  c: CollaboratorEntity,
  day: number,
  p: EffectivePunch,
): Record<string, unknown> {
  const t = punchTraits(world, c, day, p);
  const gps = isGeolocated(world, t);
  return {
    point_id: p.id,
    datetime: dateTimeOf(day, p.sec),
    hour: hourMinuteOf(p.sec % 86400),
    method: t.method,
    origin: t.origin,
    is_adjusted: p.adjusted,
    adjustment_reason: p.reason,
    adjusted_by: p.by,
    accuracy_meters: gps ? t.accuracy : null,
    geolocation: gps ? { lat: t.lat, lng: t.lng } : null,
    address: gps ? world.unitOf(c).address : null,
    has_audit_photo: t.audit,
    // Quirk extraFields: a field the spec does not describe, as an additive API change sends it.
    ...(world.options.quirks.extraFields
      ? { [EXTRA_FIELDS.point]: `${t.origin === 'REP' ? 'REP' : 'DEV'}-${c.id}` }
      : {}),
  };
}

/** spec 2.12 day object. */
export function dayJson(world: World, r: DayRecord, decimal: boolean): Record<string, unknown> {
  return {
    date: dateOf(r.day),
    shift: r.plan.shift,
    worked_time: duration(r.metrics.worked, decimal),
    points: r.punches.map((p) => pointJson(world, r.collaborator, r.day, p)),
  };
}

const KEY_INDEX = new Map<TotalHoursKey, number>(TOTAL_HOURS_KEYS.map((k, i) => [k, i]));
const BAND_KEYS = ['1', '2', '3', '4', 'dsr', 'holiday'] as const;

/** Adds one day to a totals accumulator (indexed like TOTAL_HOURS_KEYS). */
function addToTotals(acc: Float64Array, m: DayMetrics): void {
  const add = (k: TotalHoursKey, v: number): void => {
    acc[KEY_INDEX.get(k)!] += v;
  };
  add('worked_time', m.ruleWorked);
  add('worked_actual_time', m.worked);
  add('bank_time', m.bankRaw);
  add('bank_time_factored', m.credit - m.debt);
  add('fault_full_time', m.faultFull);
  add('fault_partial_time', m.faultPartial);
  add('interjourney', m.interShort);
  add('intrajourney', m.intraShort);
  add('justified_time', m.justified);
  add('justified_not_paid_time', m.justifiedNotPaid);
  add('medical_certificate_time', m.medical);
  add('night_time', m.night);
  add('night_time_reduced', nightReduced(m.night));
  BAND_KEYS.forEach((b, i) => {
    const total = m.bands[i * 2]!;
    const night = m.bands[i * 2 + 1]!;
    const k = `over_time_${b}` as const;
    add(k, total);
    add(`${k}_day`, total - night);
    add(`${k}_night`, night);
    add(`${k}_night_reduced`, nightReduced(night));
  });
}

/** A record's totals over days [from, to] (spec 2.7): its days, plus quirk `contradictions`' phantom time. */
export function periodTotals(
  history: History,
  c: CollaboratorEntity,
  from: number,
  to: number,
): Float64Array {
  const acc = new Float64Array(TOTAL_HOURS_KEYS.length);
  for (const r of history.days(c, from, to)) {
    addToTotals(acc, r.metrics);
    const phantom = phantomSeconds(history.contradicting, c, r.day);
    acc[KEY_INDEX.get('worked_time')!] += phantom;
    acc[KEY_INDEX.get('worked_actual_time')!] += phantom;
  }
  return acc;
}

/** spec 2.7 `total_hours` object. */
export function totalsJson(acc: Float64Array, decimal: boolean): Record<string, string | number> {
  const out: Record<string, string | number> = {};
  TOTAL_HOURS_KEYS.forEach((k, i) => {
    out[k] = duration(acc[i]!, decimal);
  });
  return out;
}

/** spec 2.8 tardiness entry of a day: none when the arrival was not late. */
function tardinessJson(world: World, r: DayRecord): Record<string, unknown>[] {
  const first = r.punches[0];
  if (!r.plan.scheduled || r.plan.inProgress || !first) return [];
  const tol = world.journeyOf(r.collaborator).toleranceMin * 60;
  // spec 2.8: late after start + tolerance and before two hours; later is an absence.
  if (first.sec <= r.plan.startSec + tol || first.sec >= r.plan.startSec + 7200) return [];
  return [
    {
      date: dateOf(r.day),
      journey_in: hourMinuteOf(r.plan.startSec),
      punch_in: hourMinuteOf(first.sec),
      minutes_late: secondsToHourMinute(first.sec - r.plan.startSec),
      all_points: r.punches.map((p) => hourMinuteOf(p.sec % 86400)),
    },
  ];
}

/** spec 2.9 adjustment requests of a day: approved for adjusted punches, pending for a forgotten one, refused ones. */
function adjustmentsJson(world: World, r: DayRecord): Record<string, unknown>[] {
  const date = dateOf(r.day);
  const next = dateOf(r.day + 1);
  const rng = rngFor(world.base, r.collaborator.id, r.day, 71);
  const at = (d: string, h: number): string => `${d} ${clockOf(h * 3600 + rng.int(3600))}`;
  const reqs: Record<string, unknown>[] = [];
  const add = (
    type: string,
    status: string,
    reason: string,
    obs: string,
    by: string,
    created: string,
    updated: string,
  ): void => {
    // Quirk nulls: a request no manager has handled yet has no observation and no approver.
    const unhandled = world.options.quirks.nulls && by === '';
    reqs.push({
      date,
      requests_in_day: 0,
      type,
      status,
      collaborator_reason: reason,
      manager_observation: unhandled ? null : obs,
      approved_by: unhandled ? null : by,
      created_at: created,
      updated_at: updated,
    });
  };
  for (const p of r.punches.filter((x) => x.adjusted)) {
    const created = at(date, 18);
    const type = p.manual && !p.api ? 'Inclusão de ponto' : 'Alteração de ponto';
    const updated = r.day < world.todayDay ? at(next, 9) : created;
    add(type, 'Aprovado', p.reason ?? '', 'Ajuste conferido com a equipe', p.by ?? '', created, updated);
  }
  if (r.plan.missingSlot >= 0) {
    const created = at(date, 19);
    // Quirk newEnums: half the requests awaiting a manager are "under review", a status the spec does not list.
    const review =
      world.options.quirks.newEnums && rngFor(world.base, r.collaborator.id, r.day, 72).chance(0.5);
    const status = review ? NEW_ENUM_VALUES.adjustmentStatus : 'Pendente';
    add('Inclusão de ponto', status, 'Esqueci de registrar a volta do intervalo', '', '', created, created);
  }
  if (r.plan.refused) {
    const [type, reason] = r.plan.fault
      ? ['Abono de falta', 'Estava doente e não tenho atestado']
      : ['Alteração de ponto', 'Saí mais tarde e não registrei'];
    add(type, 'Recusado', reason, 'Registro não comprovado', rng.pick(MANAGERS), at(date, 20), at(next, 10));
  }
  return reqs.map((q) => ({ ...q, requests_in_day: reqs.length }));
}

const JUSTIFICATIONS = [
  'Demanda extraordinária aprovada pela gestão',
  'Cobertura de escala',
  'Reunião com cliente',
] as const;

/** spec 2.10 inconsistencies of a day: short break, short rest between days, overtime above the limit. */
function inconsistenciesJson(world: World, r: DayRecord): Record<string, unknown>[] {
  const m = r.metrics;
  const found: [string, number][] = [];
  if (m.intraShort > 0) found.push(['Intervalo intrajornada inferior a 1 hora', -m.intraShort]);
  // Option labourLaw: a source that does not know the day's break is pre-recorded (art. 74 §2) lists it short.
  else if (r.plan.listedShortBreak && !r.plan.inProgress)
    found.push(['Intervalo intrajornada inferior a 1 hora', -INTRA_BREAK]);
  if (m.interShort > 0) found.push(['Interjornada inferior a 11 horas', -m.interShort]);
  const listedOvertime = r.plan.listedOvertime === true && !r.plan.inProgress;
  if ((m.overtime > OVERTIME_LIMIT + MARK_TOLERANCE || listedOvertime) && r.plan.scheduled)
    found.push(['Horas extras acima do limite diário', m.overtime - OVERTIME_LIMIT]);
  return found.map(([type, value], i) => {
    const rng = rngFor(world.base, r.collaborator.id, r.day, 61 + i);
    const acknowledged = rng.chance(0.6);
    return {
      date: dateOf(r.day),
      type,
      value: secondsToDuration(value),
      justification: acknowledged ? rng.pick(JUSTIFICATIONS) : null,
      status: acknowledged ? 'acknowledged' : 'pending',
    };
  });
}

/**
 * The per-day period endpoints (spec 2.8–2.10) by name: each collaborator block lists, under `key`, the
 * `entries` of its days. Their routes and their truth (`dayEntries`) read this table.
 */
export const DAY_ENTRY_ENDPOINTS: Readonly<
  Record<string, { readonly key: string; entries(world: World, r: DayRecord): Record<string, unknown>[] }>
> = {
  tardiness: { key: 'tardiness', entries: tardinessJson },
  adjustment: { key: 'adjustments', entries: adjustmentsJson },
  inconsistency: { key: 'occurrences', entries: inconsistenciesJson },
};

/** spec 2.4 absence type, with the `company` block. */
export function absenceTypeJson(t: AbsenceTypeEntity, company: CompanyBlock): Record<string, unknown> {
  return {
    id: t.id,
    description: t.description,
    paid_leave: t.paidLeave,
    comp_time: t.compTime,
    compensation: t.compensation,
    can_request_app: t.canRequestApp,
    company,
  };
}

/** spec 2.5 absence item (collaborators with their current blocks), with the `company` block. */
export function absenceJson(world: World, a: AbsenceEntity): Record<string, unknown> {
  const collaborators: SentCollaboratorBlock[] = [];
  for (const id of a.collaboratorIds) {
    const c = world.collaboratorById(id);
    if (c) collaborators.push(world.collaboratorBlock(c));
  }
  // Quirk nulls: an absence without a medical certificate has no certificate fields at all.
  const none = world.options.quirks.nulls && a.crRegister === '';
  return {
    absence_id: a.id,
    absence_type_id: a.type.id,
    type: a.type.description,
    description: a.description,
    details: a.details,
    begin_date: `${dateOf(a.beginDay)} ${clockOf(a.beginSec)}`,
    end_date: `${dateOf(a.endDay)} ${clockOf(a.endSec)}`,
    days: a.endDay - a.beginDay + 1,
    reference_date: dateOf(a.beginDay),
    comp_time: a.type.compTime,
    paid_leave: a.paid,
    full_day: a.fullDay,
    sum_on_work_time: a.sumOnWorkTime,
    sum_total_on_work_time: a.sumTotalOnWorkTime,
    cr_register: none ? null : a.crRegister,
    professional_name: none ? null : a.professionalName,
    health_unit: none ? null : a.healthUnit,
    cid_description: none ? null : a.cidDescription,
    cid: none ? null : [...a.cid],
    has_attachment: a.attachments.length > 0,
    collaborators,
    company: a.company.block,
  };
}
