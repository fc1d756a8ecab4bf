/**
 * What each reader role may see, proven by connecting AS each role (LOGIN roles made for
 * this file, trust login on the local Postgres, granted workforce_reader or
 * workforce_analyst) and reading what Postgres allows and refuses.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from '../src/migrations/migrate.js';
import { PERSONAL_DATA } from '../src/privacy/personal-data.js';
import { ensurePseudonyms, pseudonymOf } from '../src/privacy/pseudonyms.js';
import { recordReceipt } from './support/push-receipts.js';
import { TEST_DATABASE_URL } from './support/isolation.js';
import {
  absenceOf,
  block,
  CNPJ_A,
  CPF_1,
  CPF_2,
  loadWith,
  point,
  pointsOf,
  totalsOf,
  useMigratedWarehouse,
} from './warehouse-fixtures.js';

const KEY = 'test-pseudonym-key-0123456789abcdef';
const MARCH = { window: { from: '2026-03-01', to: '2026-03-31' } };

/** Postgres error codes the roles meet. */
const DENIED = '42501';
const NO_COLUMN = '42703';
const NO_RELATION = '42P01';

const t = useMigratedWarehouse('privacy_roles');
const logins: string[] = [];
const clients: pg.Client[] = [];
let analyst: pg.Client;
let reader: pg.Client;
let s: string;
let a: string;

/** A LOGIN role member of `role` and a connection as it. */
async function connectAs(role: 'workforce_reader' | 'workforce_analyst'): Promise<pg.Client> {
  const login = `${t.schema}_${role === 'workforce_reader' ? 'rdr' : 'ana'}`;
  await t.admin.query(`CREATE ROLE "${login}" LOGIN IN ROLE ${role}`);
  logins.push(login);
  const url = new URL(TEST_DATABASE_URL);
  url.username = login;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  clients.push(client);
  const who = await client.query<{ u: string }>('SELECT current_user AS u');
  expect(who.rows[0]!.u).toBe(login);
  return client;
}

/** The Postgres error code of running `sql` (fails the test when it succeeds). */
async function refusal(client: pg.Client, sql: string): Promise<string> {
  const err = await client.query(sql).then(
    () => undefined,
    (e: unknown) => e as { code: string },
  );
  expect(err, sql).toBeDefined();
  return err!.code;
}

beforeAll(async () => {
  s = `"${t.schema}"`;
  a = `"${t.schema}_analyst"`;
  await loadWith(t, 'collaborators', {}, { collaborator: [block(CPF_1), block(CPF_2)] });
  await loadWith(t, 'punches', MARCH, {
    'point/getFromPeriod': [
      pointsOf(CPF_1, {
        '2026-03-02': [point(101, '2026-03-02 08:00:00'), point(102, '2026-03-02 17:00:00')],
      }),
      pointsOf(CPF_2, { '2026-03-02': [point(201, '2026-03-02 09:00:00')] }),
    ],
  });
  await loadWith(t, 'hour_totals', MARCH, { 'collaborator/totalHours': [totalsOf(CPF_1), totalsOf(CPF_2)] });
  await loadWith(t, 'absences', MARCH, {
    'absence/getFromPeriod': [absenceOf(7001, '2026-03-10 00:00:00', '2026-03-11 23:59:59', [CPF_1])],
  });
  // What `punchline push --apply` records: entity keys that hold CPFs.
  const receipt = { company: CNPJ_A, connection: 'default', file: 'push.csv', line: 2 };
  await recordReceipt(t.w.pool, t.schema, {
    ...receipt,
    kind: 'collaborators',
    key: CPF_1,
    createdId: '9001',
  });
  await recordReceipt(t.w.pool, t.schema, {
    ...receipt,
    kind: 'punches',
    key: `${CPF_2}|2026-03-03 08:00:00`,
    createdId: '9002',
  });
  await recordReceipt(t.w.pool, t.schema, {
    ...receipt,
    kind: 'absences',
    key: `3|2026-03-20|2026-03-21|${CPF_1},${CPF_2}`,
    createdId: '9003',
  });
  await ensurePseudonyms(t.w.pool, t.schema, KEY);
  reader = await connectAs('workforce_reader');
  analyst = await connectAs('workforce_analyst');
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.end().catch(() => undefined);
  for (const login of logins) await t.admin.query(`DROP ROLE IF EXISTS "${login}"`);
});

describe('as workforce_analyst', () => {
  it('is refused every base table, the pseudonym map, the key fingerprints and the erasure register', async () => {
    for (const table of [
      'collaborators',
      'punches',
      'absences',
      'cpf_pseudonyms',
      'pseudonym_keys',
      'erasures',
      'daily_attendance',
    ]) {
      expect(await refusal(analyst, `SELECT count(*) FROM ${s}.${table}`), table).toBe(DENIED);
    }
    const err = await analyst.query(`SELECT name FROM ${s}.collaborators`).catch((e: Error) => e);
    expect((err as Error).message).toBe(`permission denied for schema ${t.schema}`);
  });

  it('reads collaborators through the analyst view: pseudonyms instead of CPFs, no names, e-mails or PIS', async () => {
    const { rows } = await analyst.query(`SELECT * FROM ${a}.collaborators ORDER BY cpf_pseudonym`);
    expect(rows).toHaveLength(2);
    expect(rows.map((r) => r.cpf_pseudonym).sort()).toEqual(
      [pseudonymOf(KEY, CPF_1), pseudonymOf(KEY, CPF_2)].sort(),
    );
    expect(rows[0]).toMatchObject({ company_cnpj: CNPJ_A, department: 'Operations', occupation: 'Analyst' });
    for (const column of ['cpf', 'name', 'email', 'pis', 'registration_number']) {
      expect(Object.keys(rows[0]!), column).not.toContain(column);
      expect(await refusal(analyst, `SELECT ${column} FROM ${a}.collaborators`), column).toBe(NO_COLUMN);
    }
  });

  it('sees no CPF, name, contact, location, health field or free text in any view', async () => {
    const { rows } = await analyst.query<{ table_name: string; column_name: string }>(
      `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = $1`,
      [`${t.schema}_analyst`],
    );
    expect(rows.length).toBeGreaterThan(100);
    const leaks = rows.filter((r) => {
      const cls = PERSONAL_DATA[r.table_name]?.columns[r.column_name];
      return r.column_name === 'cpf' || (cls !== undefined && cls.analyst !== 'shown');
    });
    expect(leaks).toEqual([]);
    const seen = new Set(rows.map((r) => `${r.table_name}.${r.column_name}`));
    for (const gone of [
      'punches.latitude',
      'punches.longitude',
      'punches.address',
      'punches.adjusted_by',
      'absences.cid',
      'absences.cid_description',
      'absences.professional_name',
      'absences.cr_register',
      'absences.health_unit',
      'daily_attendance.collaborator_name',
      'adjustment_requests.approved_by',
      'companies.email',
    ]) {
      expect(seen, gone).not.toContain(gone);
    }
    for (const kept of [
      'punches.punched_at',
      'hour_totals.worked_time_seconds',
      'absences.absence_type',
      'monthly_hours.cpf_pseudonym',
    ]) {
      expect(seen, kept).toContain(kept);
    }
  });

  it('finds no CPF in any row of any view it can read', async () => {
    const { rows: views } = await analyst.query<{ name: string }>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1`,
      [`${t.schema}_analyst`],
    );
    expect(views.map((v) => v.name)).toContain('push_receipts');
    const holding: string[] = [];
    for (const { name } of views) {
      const { rows } = await analyst.query<{ text: string | null }>(
        `SELECT string_agg(v::text, ' ') AS text FROM ${a}."${name}" v`,
      );
      if ([CPF_1, CPF_2].some((c) => rows[0]!.text?.includes(c))) holding.push(name);
    }
    expect(holding).toEqual([]);
    // push receipts stay countable by kind, without the entity's key
    const receipts = await analyst.query(
      `SELECT kind, created_id FROM ${a}.push_receipts ORDER BY created_id`,
    );
    expect(receipts.rows.map((r) => r.kind)).toEqual(['collaborators', 'punches', 'absences']);
    expect(await refusal(analyst, `SELECT row_key FROM ${a}.push_receipts`)).toBe(NO_COLUMN);
  });

  it('has no view of photos, attachments or the bookkeeping of privacy', async () => {
    for (const table of [
      'audit_photos',
      'absence_attachments',
      'cpf_pseudonyms',
      'pseudonym_keys',
      'erasures',
      'schema_migrations',
    ]) {
      expect(await refusal(analyst, `SELECT * FROM ${a}.${table}`), table).toBe(NO_RELATION);
    }
  });

  it('joins and counts people across views by pseudonym', async () => {
    const { rows } = await analyst.query(
      `SELECT c.department, count(DISTINCT p.cpf_pseudonym)::int AS people, count(*)::int AS punches
         FROM ${a}.punches p JOIN ${a}.collaborators c USING (company_cnpj, cpf_pseudonym)
        GROUP BY c.department`,
    );
    expect(rows).toEqual([{ department: 'Operations', people: 2, punches: 3 }]);
    const monthly = await analyst.query(
      `SELECT count(DISTINCT cpf_pseudonym)::int AS n FROM ${a}.monthly_hours`,
    );
    expect(monthly.rows[0].n).toBe(2);
  });

  it('cannot write through the views', async () => {
    expect(await refusal(analyst, `DELETE FROM ${a}.units`)).toBe(DENIED);
    expect(await refusal(analyst, `UPDATE ${a}.departments SET description = 'x'`)).toBe(DENIED);
  });
});

describe('as workforce_reader', () => {
  it('reads everything in the base tables, CPFs and names included', async () => {
    const { rows } = await reader.query(`SELECT cpf, name, email, pis FROM ${s}.collaborators ORDER BY cpf`);
    expect(rows.map((r) => r.cpf)).toEqual([CPF_1, CPF_2]);
    expect(rows[0]).toMatchObject({ name: `Person ${CPF_1}`, email: `${CPF_1}@example.com` });
    const abs = await reader.query(`SELECT cid_description, professional_name FROM ${s}.absences`);
    expect(abs.rows).toEqual([{ cid_description: 'Influenza', professional_name: 'Dr. House' }]);
    const map = await reader.query(`SELECT count(*)::int AS n FROM ${s}.cpf_pseudonyms`);
    expect(map.rows[0].n).toBe(2);
  });

  it('reads the erasure register but not the CPF it keeps', async () => {
    expect(await refusal(reader, `SELECT * FROM ${s}.erasures`)).toBe(DENIED);
    expect(await refusal(reader, `SELECT cpf FROM ${s}.erasures`)).toBe(DENIED);
    const { rows } = await reader.query(`SELECT id, tombstone, erased_at FROM ${s}.erasures`);
    expect(rows).toEqual([]);
  });

  it('also reads the analyst views, and writes nothing', async () => {
    const { rows } = await reader.query(`SELECT count(*)::int AS n FROM ${a}.punches`);
    expect(rows[0].n).toBe(3);
    expect(await refusal(reader, `DELETE FROM ${s}.punches`)).toBe(DENIED);
    expect(await refusal(reader, `DELETE FROM ${s}.cpf_pseudonyms`)).toBe(DENIED);
  });

  it('may not run the erasure functions', async () => {
    expect(await refusal(reader, `SELECT ${s}.apply_erasures('${CNPJ_A}')`)).toBe(DENIED);
  });
});

describe('a table or column a later migration adds', () => {
  beforeAll(async () => {
    await t.admin.query(
      `CREATE TABLE ${s}.later_records (
         id bigserial PRIMARY KEY, company_cnpj text NOT NULL, cpf text, resource text NOT NULL,
         reason text NOT NULL, payload jsonb NOT NULL, rejected_at timestamptz NOT NULL DEFAULT now())`,
    );
    await t.admin.query(
      `ALTER TABLE ${s}.punches ADD COLUMN device_kind text, ADD COLUMN device_owner_name text`,
    );
    await t.admin.query(
      `INSERT INTO ${s}.later_records (company_cnpj, cpf, resource, reason, payload)
       VALUES ($1, $2, 'punches', 'bad geolocation', '{"name": "Person"}')`,
      [CNPJ_A, CPF_1],
    );
    // an analyst view someone replaced by hand, and one whose relation is gone
    await t.admin.query(`DROP VIEW ${a}.units`);
    await t.admin.query(`CREATE VIEW ${a}.units AS SELECT 1 AS x`);
    await t.admin.query(`CREATE VIEW ${a}.gone AS SELECT 1 AS x`);
    await t.admin.query(`GRANT SELECT ON ${a}.gone TO workforce_analyst`);
    const result = await migrate(TEST_DATABASE_URL, t.schema);
    expect(result.privacy).toMatchObject({ analystSchema: `${t.schema}_analyst`, dropped: ['gone'] });
  });

  it('is covered at the next migrate: CPF pseudonymised, personal-looking columns left out', async () => {
    const { rows } = await analyst.query(`SELECT * FROM ${a}.later_records`);
    expect(rows).toEqual([
      {
        id: '1',
        company_cnpj: CNPJ_A,
        cpf_pseudonym: pseudonymOf(KEY, CPF_1),
        resource: 'punches',
        rejected_at: expect.any(Date),
      },
    ]);
    const punches = await analyst.query(`SELECT * FROM ${a}.punches LIMIT 1`);
    expect(Object.keys(punches.rows[0]!)).toContain('device_kind');
    expect(Object.keys(punches.rows[0]!)).not.toContain('device_owner_name');
  });

  it('replaces analyst views that drifted and drops those of relations that are gone', async () => {
    const units = await analyst.query(`SELECT * FROM ${a}.units`);
    expect(units.fields.map((f) => f.name)).toEqual(['company_cnpj', 'id', 'name', 'active', 'synced_at']);
    expect(await refusal(analyst, `SELECT * FROM ${a}.gone`)).toBe(NO_RELATION);
  });
});
