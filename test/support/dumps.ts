/**
 * Everything a test run left in Redis and the warehouse, as text to search: for tests
 * that prove something (a secret, a person) is nowhere.
 */
import type { Redis } from 'ioredis';
import type pg from 'pg';

/** Every key under `prefix` with its value, whatever its type, as text. */
export async function redisDump(redis: Redis, prefix: string): Promise<string> {
  const out: string[] = [];
  for (const key of await redis.keys(`${prefix}:*`)) {
    const type = await redis.type(key);
    const value =
      type === 'string'
        ? await redis.get(key)
        : type === 'hash'
          ? JSON.stringify(await redis.hgetall(key))
          : type === 'list'
            ? JSON.stringify(await redis.lrange(key, 0, -1))
            : type === 'set'
              ? JSON.stringify(await redis.smembers(key))
              : type === 'zset'
                ? JSON.stringify(await redis.zrange(key, 0, '-1', 'WITHSCORES'))
                : type === 'stream'
                  ? JSON.stringify(await redis.xrange(key, '-', '+'))
                  : '';
    out.push(`${key} ${value ?? ''}`);
  }
  return out.join('\n');
}

/** Every row of every table and view of `schemas`, as text. */
export async function warehouseDump(pool: pg.Pool, schemas: string[]): Promise<string> {
  const { rows } = await pool.query<{ s: string; t: string }>(
    `select table_schema as s, table_name as t from information_schema.tables where table_schema = any($1) order by 1, 2`,
    [schemas],
  );
  const out: string[] = [];
  for (const { s, t } of rows) {
    const r = await pool.query<{ text: string | null }>(
      `select string_agg(x::text, E'\\n') as text from "${s}"."${t}" x`,
    );
    out.push(`${s}.${t}\n${r.rows[0]!.text ?? ''}`);
  }
  return out.join('\n');
}

/**
 * The text, JSON and array columns of the tables of `schema` (but `except`) where some
 * value matches the Postgres regular expression `pattern` (case-insensitive), as
 * `table.column: rows`.
 */
export async function columnsMatching(
  pool: pg.Pool,
  schema: string,
  pattern: string,
  except: readonly string[] = [],
): Promise<string[]> {
  const { rows: columns } = await pool.query<{ t: string; c: string }>(
    `select c.table_name as t, c.column_name as c from information_schema.columns c
       join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name and t.table_type = 'BASE TABLE'
      where c.table_schema = $1 and c.data_type in ('text', 'character varying', 'character', 'json', 'jsonb', 'ARRAY')
        and not (c.table_name = any($2))
      order by 1, 2`,
    [schema, except],
  );
  const found: string[] = [];
  for (const { t, c } of columns) {
    const { rows } = await pool.query<{ n: number }>(
      `select count(*)::int as n from "${schema}"."${t}" where "${c}"::text ~* $1`,
      [pattern],
    );
    if (rows[0]!.n > 0) found.push(`${t}.${c}: ${rows[0]!.n}`);
  }
  return found;
}
