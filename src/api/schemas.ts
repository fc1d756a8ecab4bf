/**
 * Run-time shapes of the Customer API v2 records (spec §2) and formats (spec 1.2), which the
 * client validates, the emulator produces and the declarations consume. Strict where a row
 * could not be stored otherwise (keys, dates, durations); open where real data is: fields
 * records lack are nullable (a clock's punch has no GPS, a contractor no PIS), source-owned
 * value lists (origin, status, regime) are text, a new value reported as drift, and a field
 * the spec does not name is ignored (and reported once, see drift.ts).
 */
import { z } from 'zod';
import { noteNewValue } from './drift.js';
import { DATE_TIME_RE, isCalendarDate } from '../util/time.js';
import { HOUR_MINUTE_RE } from '../util/duration.js';

/** spec 1.2: `HH:MM:SS`, signed, hours may exceed two digits. */
export const DURATION_RE = /^-?\d{2,}:[0-5]\d:[0-5]\d$/;

export const dateString = z
  .string()
  .refine(isCalendarDate, { message: 'expected a date YYYY-MM-DD (spec 1.2)' });
export const dateTimeString = z
  .string()
  .refine((v) => DATE_TIME_RE.test(v) && isCalendarDate(v.slice(0, 10)), {
    message: 'expected a date-time YYYY-MM-DD HH:MM:SS (spec 1.2)',
  });
export const durationString = z
  .string()
  .regex(DURATION_RE, { message: 'expected a duration [-]HH:MM:SS (spec 1.2)' });
export const hourMinuteString = z.string().regex(HOUR_MINUTE_RE, { message: 'expected HH:MM (spec 1.2)' });
/** spec 1.2: durations become numbers with `decimal_format=1`. */
export const durationOrDecimal = z.union([durationString, z.number()]);
/**
 * spec 1.2: CPF, 11 digits; as a number it has lost its leading zeros (spec 8 pads them back on
 * one write), and some send it formatted: {@link normalizeCpf} makes anything of up to 11 digits canonical.
 */
export const cpfValue = z
  .union([z.string(), z.number().int().nonnegative()])
  .refine((v) => normalizeCpf(v) !== undefined, { message: 'expected a CPF: up to 11 digits (spec 1.2)' })
  .transform((v) => normalizeCpf(v)!);

/** A CPF as 11 digits with its leading zeros, or undefined when `value` cannot be one. */
export function normalizeCpf(value: string | number): string | undefined {
  const digits =
    typeof value === 'number'
      ? Number.isSafeInteger(value) && value >= 0
        ? String(value)
        : ''
      : value.replace(/[.\-\s/]/g, '');
  if (!/^\d{1,11}$/.test(digits)) return undefined;
  return digits.padStart(11, '0');
}

/** A source-owned value list (spec 2.9, 2.11, 2.12): any text; one not `known` is reported once as drift. */
export function openVocabulary(field: string, known: readonly string[]) {
  const listed = new Set(known);
  return z.string().check((ctx) => {
    // The running validation's watch says each new value once (src/api/drift.ts).
    if (!listed.has(ctx.value)) noteNewValue(field, ctx.value);
  });
}

/** A text field real records may lack (null or absent). */
export const optionalText = z.string().nullish();
/** spec 1.2: CNPJ, 14 digits (leading zeros kept). */
export const cnpjString = z
  .string()
  .regex(/^\d{14}$/, { message: 'expected a CNPJ of 14 digits (spec 1.2)' });

/** spec 2.1: `company` block on every read record (spec 1.4 rule 4). */
export const companyBlock = z.object({
  name: z.string(),
  trading_name: z.string(),
  national_registry: cnpjString,
});
export type CompanyBlock = z.infer<typeof companyBlock>;

/** spec 2.1: Collaborator block. Contractors have no `pis` or `registration_number`. */
export const collaboratorBlock = z.object({
  national_registry: cpfValue,
  registration_number: optionalText,
  email: optionalText,
  name: optionalText,
  occupation: optionalText,
  department: optionalText,
  team: optionalText,
  business_unit: optionalText,
  admission_date: dateString.nullish(),
  pis: optionalText,
  company: companyBlock,
});
export type CollaboratorBlock = z.infer<typeof collaboratorBlock>;

/** spec 2.2: Company. */
export const company = companyBlock.extend({
  cei: optionalText,
  caepf: optionalText,
  cno: optionalText,
  // A company's address parts are often empty in real data.
  address: optionalText,
  address_number: optionalText,
  complement: optionalText,
  neighborhood: optionalText,
  zip_code: optionalText,
  phone: optionalText,
  email: optionalText,
});
export type Company = z.infer<typeof company>;

/** spec 2.3: Economic group entry. */
export const economicGroupEntry = companyBlock.extend({ is_headquarter: z.boolean() });
export type EconomicGroupEntry = z.infer<typeof economicGroupEntry>;

/**
 * spec 1.4 rule 4: every record of a read answer carries its `company` block; named so it is
 * not reported as drift, optional as the records of spec 2.4 to 2.6 and 2.13 do not show it.
 */
const recordCompany = companyBlock.optional();

/** spec 2.4: lookups with `description`. */
export const describedLookup = z.object({
  id: z.number().int(),
  description: z.string(),
  company: recordCompany,
});
/** spec 2.4: lookups with `name`. */
export const namedLookup = z.object({ id: z.number().int(), name: z.string(), company: recordCompany });

/** spec 2.4: Absence type. */
export const absenceType = z.object({
  id: z.number().int(),
  description: z.string(),
  paid_leave: z.boolean(),
  comp_time: z.boolean(),
  compensation: z.boolean(),
  can_request_app: z.boolean(),
  company: recordCompany,
});

/** spec 2.5: Absence. */
export const absence = z.object({
  absence_id: z.number().int(),
  absence_type_id: z.number().int(),
  type: optionalText,
  description: optionalText,
  details: optionalText,
  begin_date: dateTimeString,
  end_date: dateTimeString,
  days: z.number().int(),
  reference_date: dateString,
  comp_time: z.boolean(),
  paid_leave: z.boolean(),
  full_day: z.boolean(),
  sum_on_work_time: z.boolean(),
  sum_total_on_work_time: z.boolean(),
  // Absences without a medical certificate have none of these.
  cr_register: optionalText,
  professional_name: optionalText,
  health_unit: optionalText,
  cid_description: optionalText,
  cid: z.array(z.string()).nullish(),
  has_attachment: z.boolean(),
  collaborators: z.array(collaboratorBlock),
  company: recordCompany,
});
export type Absence = z.infer<typeof absence>;

/** spec 2.6: Absence attachment. */
export const absenceAttachment = z.object({
  filename: z.string(),
  mime_type: z.string(),
  base64: z.string().base64(),
  company: recordCompany,
});

/** spec 2.7: every key of the `total_hours` object. */
export const TOTAL_HOURS_KEYS = [
  'worked_time',
  'worked_actual_time',
  'bank_time',
  'bank_time_factored',
  'fault_full_time',
  'fault_partial_time',
  'interjourney',
  'intrajourney',
  'justified_time',
  'justified_not_paid_time',
  'medical_certificate_time',
  'night_time',
  'night_time_reduced',
  // over_time_1 ... over_time_holiday, each with its _day, _night and _night_reduced parts.
  ...([1, 2, 3, 4, 'dsr', 'holiday'] as const).flatMap((n) =>
    (['', '_day', '_night', '_night_reduced'] as const).map((part) => `over_time_${n}${part}` as const),
  ),
] as const;
export type TotalHoursKey = (typeof TOTAL_HOURS_KEYS)[number];

/** spec 2.7: `total_hours` object (strings, or numbers with `decimal_format=1`). */
const totalHoursShape = Object.fromEntries(TOTAL_HOURS_KEYS.map((k) => [k, durationOrDecimal]));
export const totalHours = z.object(totalHoursShape as Record<TotalHoursKey, typeof durationOrDecimal>);
export type TotalHours = z.infer<typeof totalHours>;
export const collaboratorTotalHours = collaboratorBlock.extend({ total_hours: totalHours });
export type CollaboratorTotalHours = z.infer<typeof collaboratorTotalHours>;

/** spec 2.8: Tardiness entry. */
export const tardinessEntry = z.object({
  date: dateString,
  journey_in: hourMinuteString,
  punch_in: hourMinuteString,
  minutes_late: hourMinuteString,
  all_points: z.array(hourMinuteString),
});
export const collaboratorTardiness = collaboratorBlock.extend({ tardiness: z.array(tardinessEntry) });
export type CollaboratorTardiness = z.infer<typeof collaboratorTardiness>;

/** spec 2.9: Adjustment request. */
export const ADJUSTMENT_STATUSES = ['Pendente', 'Aprovado', 'Recusado'] as const;
export const adjustmentRequest = z.object({
  date: dateString,
  requests_in_day: z.number().int(),
  type: optionalText,
  status: openVocabulary('adjustment.status', ADJUSTMENT_STATUSES),
  collaborator_reason: optionalText,
  // A request still awaiting a manager has no observation and no approver.
  manager_observation: optionalText,
  approved_by: optionalText,
  created_at: dateTimeString,
  updated_at: dateTimeString,
});
export const collaboratorAdjustments = collaboratorBlock.extend({ adjustments: z.array(adjustmentRequest) });
export type CollaboratorAdjustments = z.infer<typeof collaboratorAdjustments>;

/** spec 2.11: hour-bank regimes. */
export const REGIMES = ['BH', 'HE', 'Híbrido (BH)', 'Híbrido (HE)'] as const;
/** spec 2.11: Overtime / hour-bank day balance. */
export const overtimeBalance = collaboratorBlock.extend({
  regime: openVocabulary('overtime.regime', REGIMES),
  total_overtime: durationString,
  missing_hours: durationString,
  interval_hours: durationString,
  normal_hours: durationString,
  day_balance: durationString,
  accumulated_balance: durationString,
  credit: durationString,
  debt: durationString,
});
export type OvertimeBalance = z.infer<typeof overtimeBalance>;

/** spec 2.12: point origins. */
export const POINT_ORIGINS = ['App Mobile', 'Web', 'REP', 'Manual', 'API'] as const;
/** spec 2.12: Point object. */
export const point = z.object({
  point_id: z.number().int(),
  datetime: dateTimeString,
  hour: hourMinuteString,
  method: optionalText,
  origin: openVocabulary('point.origin', POINT_ORIGINS),
  is_adjusted: z.boolean(),
  adjustment_reason: optionalText,
  adjusted_by: optionalText,
  // Punches from a physical clock (REP) or entered by a manager carry no GPS.
  accuracy_meters: z.number().nullish(),
  geolocation: z.object({ lat: z.number().nullish(), lng: z.number().nullish() }).nullish(),
  address: optionalText,
  has_audit_photo: z.boolean(),
});
export type Point = z.infer<typeof point>;
/** spec 2.12: Day object. */
export const workDay = z.object({
  date: dateString,
  shift: optionalText,
  worked_time: durationOrDecimal,
  points: z.array(point),
});
export const collaboratorPoints = collaboratorBlock.extend({ days: z.array(workDay) });
export type CollaboratorPoints = z.infer<typeof collaboratorPoints>;

/** spec 2.13: Audit photo. */
export const auditPhoto = z.object({
  point_id: z.number().int(),
  filename: z.string(),
  mime_type: z.string(),
  base64: z.string().base64(),
  company: recordCompany,
});

/** spec 1.1 / 4.1: `meta` of period endpoints. */
export const periodMeta = z.object({ begin_date: z.string(), end_date: z.string() });
/** spec 4.1: `meta` of `overtime`. */
export const dateMeta = z.object({ date: dateString });

/** spec 4.2: creation results. */
export const createdId = z.object({ id: z.number().int() });
export const successResult = z.object({ success: z.literal(true) });
export const createdPoint = z.object({
  point_id: z.number().int(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
});
export const createdAbsence = z.object({ absence_id: z.number().int() });
