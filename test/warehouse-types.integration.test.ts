import { describe, expect, it } from 'vitest';
import { WAREHOUSE_TABLE_COLUMNS, WAREHOUSE_VIEW_COLUMNS } from '../src/warehouse/types.js';
import { useMigratedWarehouse } from './warehouse-fixtures.js';

interface LiveColumn {
  table_name: string;
  column_name: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
}

/** The descriptor a live column should have (types.ts notation). */
function describeLive(c: LiveColumn, isView: boolean): string {
  if (isView) return c.udt_name;
  if (c.is_nullable === 'YES') return `${c.udt_name}?`;
  return c.column_default === null ? c.udt_name : `${c.udt_name}=`;
}

function described(columns: Record<string, Record<string, string>>, isView: boolean): Record<string, Record<string, string>> {
  return Object.fromEntries(
    Object.entries(columns).map(([t, cols]) => [
      t,
      Object.fromEntries(Object.entries(cols).map(([c, d]) => [c, isView ? d.replace(/[?=]$/, '') : d])),
    ]),
  );
}

describe('kysely table types (src/warehouse/types.ts)', () => {
  const t = useMigratedWarehouse('wh_types');

  async function live(kind: 'BASE TABLE' | 'VIEW'): Promise<Record<string, Record<string, string>>> {
    const { rows } = await t.admin.query<LiveColumn>(
      `SELECT c.table_name, c.column_name, c.udt_name, c.is_nullable, c.column_default
         FROM information_schema.columns c
         JOIN information_schema.tables r ON r.table_schema = c.table_schema AND r.table_name = c.table_name
        WHERE c.table_schema = $1 AND r.table_type = $2
        ORDER BY c.table_name, c.ordinal_position`,
      [t.schema, kind],
    );
    const out: Record<string, Record<string, string>> = {};
    for (const r of rows) (out[r.table_name] ??= {})[r.column_name] = describeLive(r, kind === 'VIEW');
    return out;
  }

  it('describe exactly the live tables: same tables, columns, types, nullability and defaults', async () => {
    expect(await live('BASE TABLE')).toEqual(described(WAREHOUSE_TABLE_COLUMNS, false));
  });

  it('describe exactly the live views: same views, columns and types', async () => {
    expect(await live('VIEW')).toEqual(described(WAREHOUSE_VIEW_COLUMNS, true));
  });

  it('list the columns in table order, so the descriptions read like the DDL', async () => {
    const liveTables = await live('BASE TABLE');
    for (const [table, cols] of Object.entries(WAREHOUSE_TABLE_COLUMNS)) {
      expect(Object.keys(cols), table).toEqual(Object.keys(liveTables[table] ?? {}));
    }
  });

  it('work in the warehouse schema: kysely qualifies names and raw SQL finds them on search_path', async () => {
    const { rows } = await t.w.pool.query('SHOW search_path');
    expect(rows[0].search_path).toBe(`"${t.schema}",public`);
    const { rows: n } = await t.w.pool.query('SELECT count(*)::int AS n FROM schema_migrations');
    expect(n[0].n).toBeGreaterThan(0);
  });

  it('type query results as the warehouse pool returns them', async () => {
    await t.w.db
      .insertInto('sync_runs')
      .values({ resource: 'punches', status: 'succeeded', company_cnpj: '01234567000189', window_start: '2024-03-01', window_end: '2024-03-31', finished_at: new Date() })
      .execute();
    const run = await t.w.db.selectFrom('sync_runs').selectAll().executeTakeFirstOrThrow();
    expect(typeof run.id).toBe('number');
    expect(run.window_start).toBe('2024-03-01');
    expect(run.started_at).toBeInstanceOf(Date);
    const fresh = await t.w.db.selectFrom('sync_freshness').selectAll().executeTakeFirstOrThrow();
    expect(fresh.resource).toBe('punches');
    expect(typeof fresh.age_seconds).toBe('number');
  });
});
