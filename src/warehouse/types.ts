/**
 * kysely types of every warehouse table and view, derived from one hand-maintained
 * runtime description ({@link WAREHOUSE_COLUMNS}: column → Postgres type) so that the
 * types cannot drift from it, and a test compares that description with the live
 * schema both ways (names, types, nullability, defaults).
 *
 * Values are typed as the pool of `createWarehouse` returns them: `date` and
 * `timestamp` (local, as sent by the API) as strings, `bigint` as number, `timestamptz`
 * as Date, `numeric` as string.
 */
import type { ColumnType, Selectable } from 'kysely';
import { TOTAL_HOURS_KEYS, type TotalHoursKey } from '../api/schemas.js';

/** Postgres types used by the warehouse, by `udt_name`. */
interface PgSelect {
  int4: number;
  int8: number;
  float8: number;
  numeric: string;
  text: string;
  bool: boolean;
  date: string;
  timestamp: string;
  timestamptz: Date;
  time: string;
  bytea: Buffer;
  _text: string[];
  _time: string[];
}
/** What each type accepts on insert and update. */
interface PgInput extends Omit<PgSelect, 'int8' | 'timestamptz'> {
  int8: number | string;
  timestamptz: Date | string;
}
/** A Postgres type name. */
export type PgTypeName = keyof PgSelect;
/** `type` = NOT NULL without default, `type?` = nullable, `type=` = NOT NULL with a default. */
export type ColumnDescriptor = PgTypeName | `${PgTypeName}?` | `${PgTypeName}=`;

type Column<D> = D extends `${infer B extends PgTypeName}?`
  ? ColumnType<PgSelect[B] | null, PgInput[B] | null | undefined, PgInput[B] | null>
  : D extends `${infer B extends PgTypeName}=`
    ? ColumnType<PgSelect[B], PgInput[B] | undefined, PgInput[B]>
    : D extends PgTypeName
      ? ColumnType<PgSelect[D], PgInput[D], PgInput[D]>
      : never;

const lookup = <L extends 'description' | 'name'>(label: L) =>
  ({ company_cnpj: 'text', id: 'int4', [label]: 'text', active: 'bool', synced_at: 'timestamptz=' }) as {
    company_cnpj: 'text';
    id: 'int4';
    active: 'bool';
    synced_at: 'timestamptz=';
  } & { [K in L]: 'text' };

const totalsColumns = Object.fromEntries(TOTAL_HOURS_KEYS.map((k) => [`${k}_seconds`, 'int4'])) as {
  [K in TotalHoursKey as `${K}_seconds`]: 'int4';
};
const monthlyColumns = Object.fromEntries(TOTAL_HOURS_KEYS.map((k) => [`${k}_hours`, 'numeric'])) as {
  [K in TotalHoursKey as `${K}_hours`]: 'numeric';
};

/** Every table of the warehouse schema with its columns, in table order. */
export const WAREHOUSE_TABLE_COLUMNS = {
  schema_migrations: {
    version: 'text',
    name: 'text',
    checksum: 'text',
    applied_at: 'timestamptz=',
    duration_ms: 'int4',
  },
  companies: {
    cnpj: 'text',
    name: 'text',
    trading_name: 'text',
    cei: 'text?',
    caepf: 'text?',
    cno: 'text?',
    address: 'text?',
    address_number: 'text?',
    complement: 'text?',
    neighborhood: 'text?',
    zip_code: 'text?',
    phone: 'text?',
    email: 'text?',
    is_headquarter: 'bool?',
    headquarter_cnpj: 'text?',
    synced_at: 'timestamptz=',
  },
  collaborators: {
    company_cnpj: 'text',
    cpf: 'text',
    registration_number: 'text?',
    email: 'text?',
    name: 'text?',
    occupation: 'text',
    department: 'text',
    team: 'text?',
    business_unit: 'text',
    admission_date: 'date',
    pis: 'text?',
    active: 'bool',
    source: 'text',
    first_seen_at: 'timestamptz=',
    synced_at: 'timestamptz=',
  },
  collaborator_history: {
    company_cnpj: 'text',
    cpf: 'text',
    valid_from: 'timestamptz',
    valid_to: 'timestamptz?',
    registration_number: 'text?',
    email: 'text?',
    name: 'text?',
    occupation: 'text',
    department: 'text',
    team: 'text?',
    business_unit: 'text',
    synced_at: 'timestamptz=',
  },
  departments: lookup('description'),
  occupations: lookup('description'),
  cost_centers: lookup('name'),
  units: lookup('name'),
  journeys: lookup('description'),
  point_rules: lookup('description'),
  collaborator_settings: lookup('description'),
  digital_fences: lookup('name'),
  dismissal_types: lookup('name'),
  absence_types: {
    company_cnpj: 'text',
    id: 'int4',
    description: 'text',
    paid_leave: 'bool',
    comp_time: 'bool',
    compensation: 'bool',
    can_request_app: 'bool',
    active: 'bool',
    synced_at: 'timestamptz=',
  },
  punches: {
    point_id: 'int8',
    company_cnpj: 'text',
    cpf: 'text',
    work_date: 'date',
    punched_at_local: 'timestamp',
    punched_at: 'timestamptz',
    hour_local: 'text',
    method: 'text',
    origin: 'text',
    is_adjusted: 'bool',
    adjustment_reason: 'text?',
    adjusted_by: 'text?',
    accuracy_meters: 'float8',
    latitude: 'float8?',
    longitude: 'float8?',
    address: 'text?',
    has_audit_photo: 'bool',
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  work_days: {
    company_cnpj: 'text',
    cpf: 'text',
    work_date: 'date',
    shift: 'text',
    worked_seconds: 'int4',
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  audit_photos: {
    point_id: 'int8',
    company_cnpj: 'text?',
    filename: 'text',
    mime_type: 'text',
    size_bytes: 'int4',
    sha256: 'text',
    content: 'bytea?',
    synced_at: 'timestamptz=',
  },
  hour_totals: {
    company_cnpj: 'text',
    cpf: 'text',
    period_start: 'date',
    period_end: 'date',
    ...totalsColumns,
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  tardiness: {
    company_cnpj: 'text',
    cpf: 'text',
    work_date: 'date',
    journey_in: 'time',
    punch_in: 'time',
    late_seconds: 'int4',
    all_points: '_time',
    synced_at: 'timestamptz=',
  },
  adjustment_requests: {
    company_cnpj: 'text',
    cpf: 'text',
    request_date: 'date',
    seq: 'int4',
    requests_in_day: 'int4',
    adjustment_type: 'text',
    status: 'text',
    collaborator_reason: 'text?',
    manager_observation: 'text?',
    approved_by: 'text?',
    created_at_local: 'timestamp',
    created_at: 'timestamptz',
    updated_at_local: 'timestamp',
    updated_at: 'timestamptz',
    synced_at: 'timestamptz=',
  },
  inconsistencies: {
    company_cnpj: 'text',
    cpf: 'text',
    occurrence_date: 'date',
    seq: 'int4',
    inconsistency_type: 'text',
    value_seconds: 'int4',
    justification: 'text?',
    status: 'text',
    synced_at: 'timestamptz=',
  },
  hour_bank_balances: {
    company_cnpj: 'text',
    cpf: 'text',
    balance_date: 'date',
    regime: 'text',
    total_overtime_seconds: 'int4',
    missing_hours_seconds: 'int4',
    interval_hours_seconds: 'int4',
    normal_hours_seconds: 'int4',
    day_balance_seconds: 'int4',
    accumulated_balance_seconds: 'int4',
    credit_seconds: 'int4',
    debt_seconds: 'int4',
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  absences: {
    absence_id: 'int8',
    company_cnpj: 'text',
    absence_type_id: 'int4',
    absence_type: 'text',
    description: 'text?',
    details: 'text?',
    begins_at_local: 'timestamp',
    begins_at: 'timestamptz',
    ends_at_local: 'timestamp',
    ends_at: 'timestamptz',
    days: 'int4',
    reference_date: 'date',
    comp_time: 'bool',
    paid_leave: 'bool',
    full_day: 'bool',
    sum_on_work_time: 'bool',
    sum_total_on_work_time: 'bool',
    cr_register: 'text?',
    professional_name: 'text?',
    health_unit: 'text?',
    cid_description: 'text?',
    cid: '_text?',
    has_attachment: 'bool',
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  absence_collaborators: {
    absence_id: 'int8',
    company_cnpj: 'text',
    cpf: 'text',
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  absence_attachments: {
    absence_id: 'int8',
    filename: 'text',
    company_cnpj: 'text?',
    mime_type: 'text',
    size_bytes: 'int4',
    sha256: 'text',
    content: 'bytea?',
    synced_at: 'timestamptz=',
    deleted_at: 'timestamptz?',
  },
  sync_runs: {
    id: 'int8=',
    job_id: 'text?',
    connection: 'text?',
    resource: 'text',
    company_cnpj: 'text?',
    window_start: 'date?',
    window_end: 'date?',
    status: 'text',
    attempt: 'int4?',
    requests: 'int4?',
    rows_inserted: 'int4?',
    rows_updated: 'int4?',
    rows_deleted: 'int4?',
    started_at: 'timestamptz=',
    finished_at: 'timestamptz?',
    duration_ms: 'int4?',
    error: 'text?',
    worker: 'text?',
  },
  sync_windows: {
    connection: 'text',
    company_cnpj: 'text',
    resource: 'text',
    window_start: 'date',
    window_end: 'date',
    completed_at: 'timestamptz=',
    run_id: 'int8?',
  },
  cpf_pseudonyms: {
    cpf: 'text',
    pseudonym: 'text',
    key_id: 'text',
    computed_at: 'timestamptz=',
  },
  erasures: {
    id: 'int8=',
    company_cnpj: 'text',
    cpf: 'text',
    tombstone: 'text',
    erased_at: 'timestamptz=',
    erased_by: 'text',
    note: 'text?',
    rows_erased: 'int8=',
    last_applied_at: 'timestamptz?',
    lifted_at: 'timestamptz?',
    lifted_by: 'text?',
  },
} as const satisfies Record<string, Record<string, ColumnDescriptor>>;

/**
 * Every view with its columns. Postgres reports every view column as nullable; the
 * descriptors say what the view's definition guarantees.
 */
export const WAREHOUSE_VIEW_COLUMNS = {
  daily_attendance: {
    company_cnpj: 'text',
    cpf: 'text',
    collaborator_name: 'text?',
    department: 'text?',
    work_date: 'date',
    shift: 'text',
    first_in_local: 'timestamp?',
    last_out_local: 'timestamp?',
    first_in_at: 'timestamptz?',
    last_out_at: 'timestamptz?',
    punch_count: 'int4',
    worked_seconds: 'int4',
    worked_hours: 'numeric',
    late_seconds: 'int4',
    is_late: 'bool',
    is_scheduled: 'bool',
    is_absent: 'bool',
    on_leave: 'bool',
    absence_type: 'text?',
  },
  monthly_hours: {
    company_cnpj: 'text',
    cpf: 'text',
    month: 'date',
    periods: 'int4',
    ...monthlyColumns,
  },
  sync_freshness: {
    company_cnpj: 'text?',
    resource: 'text',
    last_success_at: 'timestamptz',
    age_seconds: 'int4',
  },
} as const satisfies Record<string, Record<string, ColumnDescriptor>>;

/** Tables and views together, as kysely sees them. */
export const WAREHOUSE_COLUMNS = { ...WAREHOUSE_TABLE_COLUMNS, ...WAREHOUSE_VIEW_COLUMNS };

type Described = typeof WAREHOUSE_COLUMNS;

/** The kysely database interface of the warehouse schema (tables and views). */
export type Database = {
  [T in keyof Described]: { [C in keyof Described[T]]: Column<Described[T][C]> };
};

/** Name of a warehouse table or view. */
export type RelationName = keyof Database;

/** A row as selected from table or view `T`. */
export type Row<T extends RelationName> = Selectable<Database[T]>;
