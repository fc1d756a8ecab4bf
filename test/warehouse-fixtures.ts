/**
 * Fixtures for the warehouse tests: API records of spec §2 shaped like the client returns
 * them, a migrated unique schema per test file, and the real load engine run against a
 * fixture API (test/support/fixture-api.ts).
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
import { createLogger } from '../src/logger.js';
import { CATALOG, type Resource } from '../src/resources/index.js';
import type { EngineContext, LoadResult } from '../src/load/context.js';
import { loadResource } from '../src/load/load-resource.js';
import { EngineMemory } from '../src/load/memory.js';
import type { DateWindow } from '../src/plan/windows.js';
import { createWarehouse, type Warehouse } from '../src/warehouse/db.js';
import { migrate } from '../src/migrations/migrate.js';
import { FixtureApi, type Answers } from './support/fixture-api.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';
import type { Removal } from '../src/plan/job-data.js';
import { SuspiciousAnswerError } from '../src/load/errors.js';
import { catchUpMarts } from '../src/runtime/marts-job.js';

/** Company A of the fixtures (leading zero on purpose). */
export const CNPJ_A = '01234567000189';
/** Company B of the fixtures. */
export const CNPJ_B = '98765432000110';
/** CPFs of the fixtures (leading zeros on purpose). */
export const CPF_1 = '00123456789';
export const CPF_2 = '01987654321';

/** A collaborator block of `company`. */
export function block(
  cpf: string,
  overrides: Partial<CollaboratorBlock> = {},
  company = CNPJ_A,
): CollaboratorBlock {
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
    days: Object.entries(days).map(([date, points]) => ({
      date,
      shift: '08:00-17:00',
      worked_time: '08:00:00',
      points,
    })),
  };
}

/** Hour totals of one collaborator, every key `value` unless overridden. */
export function totalsOf(
  cpf: string,
  overrides: Partial<TotalHours> = {},
  value: string | number = '01:00:00',
): CollaboratorTotalHours {
  const total = Object.fromEntries(TOTAL_HOURS_KEYS.map((k) => [k, value])) as TotalHours;
  return { ...block(cpf), total_hours: { ...total, ...overrides } };
}

/** An absence of company A. */
export function absenceOf(
  id: number,
  begin: string,
  end: string,
  cpfs: string[],
  overrides: Partial<Absence> = {},
): Absence {
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

/** Time zone of the fixture companies. */
export const TZ = 'America/Sao_Paulo';

/** The engine's context on the test warehouse, reading from `api`. */
export function engineOf(
  t: TestWarehouse,
  api: FixtureApi,
  options: { storeBinaries?: boolean; callsAtOnce?: number } = {},
): EngineContext {
  return {
    api,
    pool: t.w.pool,
    schema: t.schema,
    logger: createLogger({ level: 'silent' }),
    callsAtOnce: options.callsAtOnce ?? 3,
    call: (_w, signal) => (signal ? { signal } : {}),
    storeBinaries: options.storeBinaries ?? false,
    memory: new EngineMemory(),
  };
}

/** What one engine run covers: the company (A by default), its window and zone, and options. */
export interface LoadTarget {
  company?: string;
  window?: DateWindow;
  timezone?: string;
  force?: boolean;
  storeBinaries?: boolean;
  /** Removals an earlier attempt refused (see loadResource). */
  seenRemovals?: readonly Removal[];
  /** 1: a refused removal throws; otherwise a second attempt follows, as a job's retry would. */
  attempts?: 1;
}

/**
 * Runs the real engine (`loadResource`) for one resource of the catalog, answered by
 * `answers` (or a fixture API the test keeps, to count its calls).
 */
export async function loadWith(
  t: TestWarehouse,
  resource: Resource,
  target: LoadTarget,
  answers: Answers | FixtureApi,
): Promise<LoadResult> {
  const api = answers instanceof FixtureApi ? answers : new FixtureApi(answers);
  const load = (seenRemovals: readonly Removal[] | undefined) =>
    loadResource(engineOf(t, api, { storeBinaries: target.storeBinaries ?? false }), {
      connection: 'default',
      name: resource,
      declaration: CATALOG[resource],
      company: target.company ?? CNPJ_A,
      scope: undefined,
      timezone: target.timezone ?? TZ,
      ...(seenRemovals ? { seenRemovals } : {}),
      ...(target.window ? { window: target.window } : {}),
      force: target.force ?? false,
    });
  try {
    return await load(target.seenRemovals);
  } catch (err) {
    // As a job would: the next attempt reads again, and removes what the first one refused
    // if its answer agrees (`attempts: 1` shows the refusal itself).
    if (!(err instanceof SuspiciousAnswerError) || target.attempts === 1) throw err;
    return load(err.refused);
  }
}

/**
 * Brings the company's marts up to date with what `loadWith` recorded as pending, as the
 * marts follow-up a worker runs after the loads would (docs/architecture.md): loads no
 * longer touch the marts. The marts' today is a fixed day after every fixture's dates.
 */
export async function catchUpMartsOf(t: TestWarehouse, company = CNPJ_A, zone = TZ): Promise<void> {
  await catchUpMarts({ pool: t.w.pool, schema: t.schema }, new Date('2026-11-28T12:00:00Z'), company, zone);
}
