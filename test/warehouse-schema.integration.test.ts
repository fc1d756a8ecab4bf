/**
 * The warehouse as analysts and BI tools rely on it, checked on a freshly migrated
 * schema: which tables exist and by which natural key a row is found, the views, a
 * COMMENT on everything, and the read-only reader role. A migration that drops a table,
 * changes a key or forgets a comment fails here; an intended change edits the lists
 * below (and docs/warehouse.md is regenerated, see warehouse-docs.integration.test.ts).
 */
import type pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/migrations/migrate.js';
import { connectPostgres, dropSchema, TEST_DATABASE_URL, uniqueName } from './support/isolation.js';

/**
 * Every table of the warehouse and the columns of its natural key, held by its primary
 * key or a unique constraint (order does not matter).
 */
const NATURAL_KEYS: Record<string, readonly string[]> = {
  companies: ['cnpj'],
  collaborators: ['company_cnpj', 'cpf', 'collaborator_record'],
  collaborator_history: ['company_cnpj', 'cpf', 'collaborator_record', 'valid_from'],
  punches: ['point_id'],
  work_days: ['company_cnpj', 'cpf', 'work_date', 'collaborator_record'],
  hour_totals: ['company_cnpj', 'cpf', 'period_start', 'period_end', 'collaborator_record'],
  tardiness: ['company_cnpj', 'cpf', 'collaborator_record', 'work_date'],
  adjustment_requests: ['company_cnpj', 'cpf', 'collaborator_record', 'request_date', 'seq'],
  inconsistencies: ['company_cnpj', 'cpf', 'collaborator_record', 'occurrence_date', 'seq'],
  hour_bank_balances: ['company_cnpj', 'cpf', 'balance_date', 'collaborator_record'],
  absences: ['absence_id'],
  absence_collaborators: ['absence_id', 'company_cnpj', 'cpf', 'collaborator_record'],
  absence_attachments: ['absence_id', 'filename'],
  audit_photos: ['point_id'],
  departments: ['company_cnpj', 'id'],
  occupations: ['company_cnpj', 'id'],
  cost_centers: ['company_cnpj', 'id'],
  units: ['company_cnpj', 'id'],
  journeys: ['company_cnpj', 'id'],
  point_rules: ['company_cnpj', 'id'],
  collaborator_settings: ['company_cnpj', 'id'],
  digital_fences: ['company_cnpj', 'id'],
  dismissal_types: ['company_cnpj', 'id'],
  absence_types: ['company_cnpj', 'id'],
  sync_runs: ['id'],
  sync_windows: ['connection', 'company_cnpj', 'resource', 'window_start', 'window_end'],
  schema_migrations: ['version'],
  rejected_records: ['id'],
  schema_drift: ['kind', 'endpoint', 'field', 'value'],
  window_loads: ['connection', 'company_cnpj', 'resource', 'window_start', 'window_end', 'table_name'],
  push_receipts: ['company_cnpj', 'kind', 'row_key'],
  cpf_pseudonyms: ['cpf'],
  pseudonym_keys: ['key_id'],
  erasures: ['id'],
  quality_checks: ['check_name', 'company_cnpj', 'part', 'scope', 'cpf', 'checked_at'],
  pushed_dismissals: ['id'],
  employments: ['company_cnpj', 'cpf', 'collaborator_record'],
  calendar: ['calendar_date'],
  employee_daily: ['company_cnpj', 'cpf', 'collaborator_record', 'work_date'],
  monthly_headcount: ['company_cnpj', 'department', 'month'],
  workforce_events: ['company_cnpj', 'event_date', 'cpf', 'collaborator_record', 'event_type'],
  company_calendar: ['company_cnpj', 'calendar_date'],
  absence_hours: ['absence_id', 'company_cnpj', 'cpf', 'collaborator_record', 'absence_date'],
  declared_holidays: ['holiday_date', 'company_cnpj', 'zip_prefix'],
  clt_daily: ['company_cnpj', 'work_date', 'cpf', 'collaborator_record'],
  clt_monthly: ['company_cnpj', 'department', 'month'],
  absence_days: ['absence_id', 'company_cnpj', 'cpf', 'collaborator_record', 'absence_date'],
  pending_changes: ['id'],
  mart_refreshes: ['company_cnpj'],
};

/** The views analysts query. */
const VIEWS = [
  'bradford_factor',
  'clt_people_90d',
  'daily_attendance',
  'group_monthly_headcount',
  'monthly_absenteeism',
  'monthly_hours',
  'monthly_turnover_12m',
  'quality_status',
  'sync_freshness',
];

/** The role BI logins are granted. */
const READER = 'workforce_reader';

const schema = uniqueName('wh_schema');
let pool: pg.Pool;

beforeAll(async () => {
  pool = await connectPostgres();
  await migrate(TEST_DATABASE_URL, schema);
});

afterAll(async () => {
  await dropSchema(pool, schema);
  await pool?.end();
});

async function relations(kind: 'r' | 'v'): Promise<string[]> {
  const { rows } = await pool.query<{ relname: string }>(
    `SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relkind = $2 ORDER BY 1`,
    [schema, kind],
  );
  return rows.map((r) => r.relname);
}

describe('a migrated warehouse schema', () => {
  it('has exactly the tables of the contract', async () => {
    expect(await relations('r')).toEqual(Object.keys(NATURAL_KEYS).sort());
  });

  it('finds each row of a table by its natural key: a primary key or unique constraint on exactly those columns', async () => {
    const { rows } = await pool.query<{ relname: string; columns: string[] }>(
      `SELECT c.relname, array_agg(a.attname::text ORDER BY a.attname) AS columns
         FROM pg_index i
         JOIN pg_class c ON c.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
         JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY (i.indkey)
        WHERE n.nspname = $1 AND i.indisunique AND i.indpred IS NULL
        GROUP BY c.relname, i.indexrelid`,
      [schema],
    );
    const missing = Object.entries(NATURAL_KEYS)
      .filter(
        ([table, key]) =>
          !rows.some((r) => r.relname === table && r.columns.join() === [...key].sort().join()),
      )
      .map(([table, key]) => `${table} (${key.join(', ')})`);
    expect(missing).toEqual([]);
  });

  it('has the analysts’ views', async () => {
    expect(await relations('v')).toEqual(VIEWS);
  });

  it('gives every table, view and column a COMMENT', async () => {
    const { rows } = await pool.query<{ what: string }>(
      `SELECT c.relname AS what FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') AND coalesce(obj_description(c.oid, 'pg_class'), '') = ''
       UNION ALL
       SELECT c.relname || '.' || a.attname FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
         JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v') AND a.attnum > 0 AND NOT a.attisdropped
          AND coalesce(col_description(c.oid, a.attnum), '') = ''`,
      [schema],
    );
    expect(rows.map((r) => r.what)).toEqual([]);
  });

  it(`lets ${READER} (no login) read every table and view (but the CPF and names of the erasure register), and write none`, async () => {
    const { rows } = await pool.query<{ relname: string; can_read: boolean; can_write: boolean }>(
      `SELECT c.relname, has_table_privilege($2, c.oid, 'SELECT') AS can_read,
              has_table_privilege($2, c.oid, 'INSERT,UPDATE,DELETE,TRUNCATE') AS can_write
         FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'v')`,
      [schema, READER],
    );
    expect(rows).toHaveLength(Object.keys(NATURAL_KEYS).length + VIEWS.length);
    // docs/privacy.md: the erasure register is readable column by column, all but cpf and names.
    expect(rows.filter((r) => !r.can_read).map((r) => r.relname)).toEqual(['erasures']);
    const erasures = await pool.query<{ attname: string; can_read: boolean }>(
      `SELECT attname, has_column_privilege($2, attrelid, attname, 'SELECT') AS can_read
         FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped`,
      [`"${schema}".erasures`, READER],
    );
    expect(erasures.rows.filter((r) => !r.can_read).map((r) => r.attname)).toEqual(['cpf', 'names']);
    expect(rows.filter((r) => r.can_write).map((r) => r.relname)).toEqual([]);
    const role = await pool.query(
      `SELECT rolcanlogin, has_schema_privilege($1, $2, 'USAGE') AS usage FROM pg_roles WHERE rolname = $1`,
      [READER, schema],
    );
    expect(role.rows).toEqual([{ rolcanlogin: false, usage: true }]);
  });
});
