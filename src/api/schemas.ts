/**
 * Run-time shapes of the Customer API v2 records (spec §2) and formats (spec 1.2).
 *
 * These schemas are the shared contract of the project: the client validates every
 * response against them, the emulator produces values of their types, and the
 * warehouse loaders consume them. Objects are not strict: a field the spec does not
 * name is tolerated, a named field that is missing or of the wrong type is an error.
 */
import { z } from 'zod';

/** spec 1.2: `YYYY-MM-DD`, a real calendar day. */
export const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
/** spec 1.2: `YYYY-MM-DD HH:MM:SS` in the company's local time. */
export const DATE_TIME_RE = /^(\d{4})-(\d{2})-(\d{2}) ([01]\d|2[0-3]):([0-5]\d):([0-5]\d)$/;
/** spec 1.2: `HH:MM:SS`, signed, hours may exceed two digits. */
export const DURATION_RE = /^-?\d{2,}:[0-5]\d:[0-5]\d$/;
/** spec 1.2 / 2.8: `HH:MM`. */
export const HOUR_MINUTE_RE = /^\d{2,}:[0-5]\d$/;

/** True when `y-m-d` names a day that exists in the proleptic Gregorian calendar. */
export function isCalendarDate(value: string): boolean {
  const m = DATE_RE.exec(value);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const dt = new Date(Date.UTC(y, mo - 1, d));
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d;
}

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
export const hourMinuteString = z
  .string()
  .regex(HOUR_MINUTE_RE, { message: 'expected HH:MM (spec 1.2)' });
/** spec 1.2: durations become numbers with `decimal_format=1`. */
export const durationOrDecimal = z.union([durationString, z.number()]);
/** spec 1.2: CPF, 11 digits (leading zeros kept). */
export const cpfString = z.string().regex(/^\d{11}$/, { message: 'expected a CPF of 11 digits (spec 1.2)' });
/** spec 1.2: CNPJ, 14 digits (leading zeros kept). */
export const cnpjString = z.string().regex(/^\d{14}$/, { message: 'expected a CNPJ of 14 digits (spec 1.2)' });

/** spec 2.1: `company` block on every read record (spec 1.4 rule 4). */
export const companyBlock = z.object({
  name: z.string(),
  trading_name: z.string(),
  national_registry: cnpjString,
});
export type CompanyBlock = z.infer<typeof companyBlock>;

/** spec 2.1: Collaborator block. */
export const collaboratorBlock = z.object({
  national_registry: cpfString,
  registration_number: z.string(),
  email: z.string(),
  name: z.string(),
  occupation: z.string(),
  department: z.string(),
  team: z.string().nullable(),
  business_unit: z.string(),
  admission_date: dateString,
  pis: z.string(),
  company: companyBlock,
});
export type CollaboratorBlock = z.infer<typeof collaboratorBlock>;

/** spec 2.2: Company. */
export const company = z.object({
  name: z.string(),
  trading_name: z.string(),
  national_registry: cnpjString,
  cei: z.string().nullable(),
  caepf: z.string().nullable(),
  cno: z.string().nullable(),
  address: z.string(),
  address_number: z.string(),
  complement: z.string(),
  neighborhood: z.string(),
  zip_code: z.string(),
  phone: z.string(),
  email: z.string(),
});
export type Company = z.infer<typeof company>;

/** spec 2.3: Economic group entry. */
export const economicGroupEntry = z.object({
  name: z.string(),
  trading_name: z.string(),
  national_registry: cnpjString,
  is_headquarter: z.boolean(),
});
export type EconomicGroupEntry = z.infer<typeof economicGroupEntry>;

/** spec 2.4: lookups with `description`. */
export const describedLookup = z.object({ id: z.number().int(), description: z.string() });
/** spec 2.4: lookups with `name`. */
export const namedLookup = z.object({ id: z.number().int(), name: z.string() });
export type DescribedLookup = z.infer<typeof describedLookup>;
export type NamedLookup = z.infer<typeof namedLookup>;

/** spec 2.4: Absence type. */
export const absenceType = z.object({
  id: z.number().int(),
  description: z.string(),
  paid_leave: z.boolean(),
  comp_time: z.boolean(),
  compensation: z.boolean(),
  can_request_app: z.boolean(),
});
export type AbsenceType = z.infer<typeof absenceType>;

/** spec 2.5: Absence. */
export const absence = z.object({
  absence_id: z.number().int(),
  absence_type_id: z.number().int(),
  type: z.string(),
  description: z.string(),
  details: z.string(),
  begin_date: dateTimeString,
  end_date: dateTimeString,
  days: z.number().int(),
  reference_date: dateString,
  comp_time: z.boolean(),
  paid_leave: z.boolean(),
  full_day: z.boolean(),
  sum_on_work_time: z.boolean(),
  sum_total_on_work_time: z.boolean(),
  cr_register: z.string(),
  professional_name: z.string(),
  health_unit: z.string(),
  cid_description: z.string(),
  cid: z.array(z.string()),
  has_attachment: z.boolean(),
  collaborators: z.array(collaboratorBlock),
});
export type Absence = z.infer<typeof absence>;

/** spec 2.6: Absence attachment. */
export const absenceAttachment = z.object({
  filename: z.string(),
  mime_type: z.string(),
  base64: z.string().base64(),
});
export type AbsenceAttachment = z.infer<typeof absenceAttachment>;

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
  ...([1, 2, 3, 4] as const).flatMap(
    (n) =>
      [`over_time_${n}`, `over_time_${n}_day`, `over_time_${n}_night`, `over_time_${n}_night_reduced`] as const,
  ),
  'over_time_dsr',
  'over_time_dsr_day',
  'over_time_dsr_night',
  'over_time_dsr_night_reduced',
  'over_time_holiday',
  'over_time_holiday_day',
  'over_time_holiday_night',
  'over_time_holiday_night_reduced',
] as const;
export type TotalHoursKey = (typeof TOTAL_HOURS_KEYS)[number];

/** spec 2.7: `total_hours` object (strings, or numbers with `decimal_format=1`). */
export const totalHours = z.object(
  Object.fromEntries(TOTAL_HOURS_KEYS.map((k) => [k, durationOrDecimal])) as Record<
    TotalHoursKey,
    typeof durationOrDecimal
  >,
);
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
export type TardinessEntry = z.infer<typeof tardinessEntry>;
export const collaboratorTardiness = collaboratorBlock.extend({ tardiness: z.array(tardinessEntry) });
export type CollaboratorTardiness = z.infer<typeof collaboratorTardiness>;

/** spec 2.9: Adjustment request. */
export const ADJUSTMENT_STATUSES = ['Pendente', 'Aprovado', 'Recusado'] as const;
export const adjustmentRequest = z.object({
  date: dateString,
  requests_in_day: z.number().int(),
  type: z.string(),
  status: z.enum(ADJUSTMENT_STATUSES),
  collaborator_reason: z.string(),
  manager_observation: z.string(),
  approved_by: z.string(),
  created_at: dateTimeString,
  updated_at: dateTimeString,
});
export type AdjustmentRequest = z.infer<typeof adjustmentRequest>;
export const collaboratorAdjustments = collaboratorBlock.extend({ adjustments: z.array(adjustmentRequest) });
export type CollaboratorAdjustments = z.infer<typeof collaboratorAdjustments>;

/** spec 2.10: Inconsistency. */
export const INCONSISTENCY_STATUSES = ['pending', 'acknowledged'] as const;
export const inconsistency = z.object({
  date: dateString,
  type: z.string(),
  value: durationString,
  justification: z.string().nullable(),
  status: z.enum(INCONSISTENCY_STATUSES),
});
export type Inconsistency = z.infer<typeof inconsistency>;
export const collaboratorInconsistencies = collaboratorBlock.extend({ occurrences: z.array(inconsistency) });
export type CollaboratorInconsistencies = z.infer<typeof collaboratorInconsistencies>;

/** spec 2.11: hour-bank regimes. */
export const REGIMES = ['BH', 'HE', 'Híbrido (BH)', 'Híbrido (HE)'] as const;
/** spec 2.11: Overtime / hour-bank day balance. */
export const overtimeBalance = collaboratorBlock.extend({
  regime: z.enum(REGIMES),
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
  method: z.string(),
  origin: z.enum(POINT_ORIGINS),
  is_adjusted: z.boolean(),
  adjustment_reason: z.string().nullable(),
  adjusted_by: z.string().nullable(),
  accuracy_meters: z.number(),
  geolocation: z.object({ lat: z.number(), lng: z.number() }),
  address: z.string(),
  has_audit_photo: z.boolean(),
});
export type Point = z.infer<typeof point>;
/** spec 2.12: Day object. */
export const workDay = z.object({
  date: dateString,
  shift: z.string(),
  worked_time: durationOrDecimal,
  points: z.array(point),
});
export type WorkDay = z.infer<typeof workDay>;
export const collaboratorPoints = collaboratorBlock.extend({ days: z.array(workDay) });
export type CollaboratorPoints = z.infer<typeof collaboratorPoints>;

/** spec 2.13: Audit photo. */
export const auditPhoto = z.object({
  point_id: z.number().int(),
  filename: z.string(),
  mime_type: z.string(),
  base64: z.string().base64(),
});
export type AuditPhoto = z.infer<typeof auditPhoto>;

/** spec 1.1 / 4.1: `meta` of period endpoints. */
export const periodMeta = z.object({ begin_date: z.string(), end_date: z.string() });
/** spec 4.1: `meta` of `overtime`. */
export const dateMeta = z.object({ date: dateString });

/** spec 4.2: creation results. */
export const createdId = z.object({ id: z.number().int() });
export const successResult = z.object({ success: z.literal(true) });
export const createdPoint = z.object({ point_id: z.number().int(), hash: z.string().regex(/^[0-9a-f]{64}$/) });
export const createdAbsence = z.object({ absence_id: z.number().int() });

/** spec 1.1: error envelope. */
export const errorEnvelope = z.object({
  error: z.object({ code: z.string(), message: z.string() }),
  payload_data_required: z.array(z.string()).optional(),
});
export type ErrorEnvelope = z.infer<typeof errorEnvelope>;
