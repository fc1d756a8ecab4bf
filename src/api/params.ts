/**
 * Parameter and body types of the typed client methods (spec §4). Read parameters are
 * camelCase and encoded by the client; write bodies use the spec's own field names.
 */

/** A period of dates, both ends inclusive (`YYYY-MM-DD`, at most 31 days, spec §8). */
export interface Period {
  beginDate: string;
  endDate: string;
}

/** A period of local date-times (`YYYY-MM-DD HH:MM:SS`), for absences (spec 4.1). */
export type DateTimePeriod = Period;

/** spec 4.1: `collaborator/totalHours` and `point/getFromPeriod` filters. */
export interface PeopleQuery extends Period {
  /** CPFs, sent as repeated `national_registry_list[]`. */
  nationalRegistryList?: readonly string[];
  /** E-mails, sent as repeated `email_list[]` (spec 1.4 rule 6). */
  emailList?: readonly string[];
  /** `decimal_format=1`: durations as decimal hours (spec 1.2). */
  decimalFormat?: boolean;
}

/** spec 4.1: `tardiness`, `adjustment`, `inconsistency` filters. */
export interface PeriodByCpfQuery extends Period {
  /** One CPF (spec 1.4 rule 6: these endpoints filter only by `national_registry`). */
  nationalRegistry?: string;
}

/** spec 4.1: `overtime` query. */
export interface OvertimeQuery {
  /** The day of the balance (`YYYY-MM-DD`). */
  date: string;
  /** One CPF. */
  nationalRegistry?: string;
}

/** spec 4.2: body of `POST collaborator`. */
export interface NewCollaborator {
  name: string;
  national_registry: string;
  email: string;
  birth_date: string;
  begin_date: string;
  journey_id: number;
  cost_center_id: number;
  department_id: number;
  unit_id: number;
  collaborator_settings_id: number;
  point_rule_id: number;
  registration_number?: string;
  admission_date?: string;
  pis?: string;
  occupation_id?: number;
}

/** spec 4.2: body of `POST collaborator/photo`. */
export interface CollaboratorPhoto {
  /** CPF digits; the API fills leading zeros up to 11. */
  national_registry: string;
  /** JPEG or PNG as base64, without a `data:` prefix. */
  photo_base64: string;
}

/** spec 4.2: body of `PUT collaborator/dismissal` (give at least one identifier). */
export interface Dismissal {
  dismissal_date: string;
  fired_type_id: number;
  collaborator_id?: number;
  registration_number?: string;
  national_registry?: string;
  fired_description?: string;
}

/** spec 4.2: body of `POST point`. */
export interface NewPoint {
  /** CPF with leading zeros. */
  national_registry: string;
  /** Local `YYYY-MM-DD HH:MM:SS`, not in the future, not before admission. */
  datetime: string;
}

/** spec 4.2: fields of `POST absence` (multipart; booleans are sent as `1`/`0`). */
export interface NewAbsence {
  /** CPFs, sent as repeated `national_registry[]`. */
  national_registry: readonly string[];
  absence_type_id: number;
  description: string;
  details: string;
  begin_date: string;
  end_date: string;
  paid: boolean;
  full_day: boolean;
  sum_on_work_time: boolean;
  sum_total_on_work_time: boolean;
}

/** The body of each JSON write of spec 4.2, by endpoint. */
export interface WriteBodies {
  'POST collaborator': NewCollaborator;
  'POST collaborator/photo': CollaboratorPhoto;
  'PUT collaborator/dismissal': Dismissal;
  'POST point': NewPoint;
  'POST department': { description: string };
  /** `number_cbo`: the occupation classification code. */
  'POST occupation': { description: string; number_cbo?: string };
  'POST fired-type': { name: string };
  'POST cost-center': { name: string };
}
