/**
 * Fixtures for the warehouse tests: API records of spec §2 shaped like the client returns
 * them, plus a migrated unique schema per test file.
 */
import { afterAll, beforeAll } from 'vitest';
import type pg from 'pg';
import type {
  Absence,
  CollaboratorBlock,
  CollaboratorPoints,
  CollaboratorTotalHours,
  Point,
  TotalHours,
} from '../src/api/schemas.js';
import { TOTAL_HOURS_KEYS } from '../src/api/schemas.js';
import { createWarehouse, type Warehouse } from '../src/warehouse/db.js';
import { migrate } from '../src/warehouse/migrate.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';

/** Company A of the fixtures (leading zero on purpose). */
export const CNPJ_A = '01234567000189';
/** Company B of the fixtures. */
export const CNPJ_B = '98765432000110';
/** CPFs of the fixtures (leading zeros on purpose). */
export const CPF_1 = '00123456789';
export const CPF_2 = '01987654321';

/** A collaborator block of `company`. */
export function block(cpf: string, overrides: Partial<CollaboratorBlock> = {}, company = CNPJ_A): CollaboratorBlock {
  return {
    national_registry: cpf,
    registration_number: `R-${cpf.slice(-4)}`,
    email: `${cpf}@example.com`,
    name: `Person ${cpf}`,
    occupation: 'Analyst',
    department: 'Operations',
    team: null,
    business_unit: 'HQ',
    admission_date: '2020-01-15',
    pis: '12345678901',
    company: { name: 'Company', trading_name: 'Co', national_registry: company },
    ...overrides,
  };
}

/** A punch. */
export function point(pointId: number, datetime: string, overrides: Partial<Point> = {}): Point {
  return {
    point_id: pointId,
    datetime,
    hour: datetime.slice(11, 16),
    method: 'face',
    origin: 'App Mobile',
    is_adjusted: false,
    adjustment_reason: null,
    adjusted_by: null,
    accuracy_meters: 12.5,
    geolocation: { lat: -23.55, lng: -46.63 },
    address: 'Av. Paulista, 1000',
    has_audit_photo: false,
    ...overrides,
  };
}

/** Points data of one collaborator: `days` maps a date to its punches. */
export function pointsOf(cpf: string, days: Record<string, Point[]>, company = CNPJ_A): CollaboratorPoints {
  return {
    ...block(cpf, {}, company),
    days: Object.entries(days).map(([date, points]) => ({ date, shift: '08:00-17:00', worked_time: '08:00:00', points })),
  };
}

/** Hour totals of one collaborator, every key `value` unless overridden. */
export function totalsOf(cpf: string, overrides: Partial<TotalHours> = {}, value: string | number = '01:00:00'): CollaboratorTotalHours {
  const total = Object.fromEntries(TOTAL_HOURS_KEYS.map((k) => [k, value])) as TotalHours;
  return { ...block(cpf), total_hours: { ...total, ...overrides } };
}

/** An absence of company A. */
export function absenceOf(id: number, begin: string, end: string, cpfs: string[], overrides: Partial<Absence> = {}): Absence {
  return {
    absence_id: id,
    absence_type_id: 3,
    type: 'Atestado médico',
    description: 'Medical leave',
    details: 'Flu',
    begin_date: begin,
    end_date: end,
    days: 1,
    reference_date: begin.slice(0, 10),
    comp_time: false,
    paid_leave: true,
    full_day: true,
    sum_on_work_time: true,
    sum_total_on_work_time: true,
    cr_register: 'CRM 1234',
    professional_name: 'Dr. House',
    health_unit: 'Clinic',
    cid_description: 'Influenza',
    cid: ['J11', 'J"10\\x'],
    has_attachment: true,
    collaborators: cpfs.map((c) => block(c)),
    ...overrides,
  };
}

/** A migrated warehouse in a unique schema for this test file; dropped afterwards. */
export interface TestWarehouse {
  w: Warehouse;
  admin: pg.Pool;
  schema: string;
}

/** Registers beforeAll/afterAll hooks creating and dropping a migrated unique schema. */
export function useMigratedWarehouse(prefix: string): TestWarehouse {
  const t = {} as TestWarehouse;
  beforeAll(async () => {
    t.admin = await connectPostgres();
    t.schema = uniqueName(prefix);
    await migrate(TEST_DATABASE_URL, t.schema);
    t.w = createWarehouse(TEST_DATABASE_URL, t.schema, { max: 3 });
  });
  afterAll(async () => {
    await t.w?.close();
    if (t.admin) {
      await dropSchema(t.admin, t.schema);
      await t.admin.end();
    }
  });
  return t;
}
