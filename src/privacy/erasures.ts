/**
 * The right to be forgotten in the warehouse: `punchline forget` records an erasure per
 * company and applies it; every later sync of the company applies it again, so the API
 * cannot bring the person back; `forget --lift` ends it. These are thin callers of the
 * functions migrate generates (erasure-functions.ts).
 */
import { sql } from 'kysely';
import { DIRECTORY } from '../resources/index.js';
import { quoteIdent, warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { introspectSchema } from '../warehouse/introspection.js';
import { PrivacyError } from '../warehouse/errors.js';
import type pg from 'pg';
import { rolledBack, withTransaction, type TransactionPool as LoaderPool } from '../warehouse/transaction.js';
import { ensurePseudonyms } from './pseudonyms.js';
import { ownNameColumns } from './personal-data.js';
import { REGISTER_TABLES } from './erasure-functions.js';

/** Fails with a clear message when `schema` lacks the privacy tables (not migrated yet). */
export async function checkPrivacyReady(db: SqlRunner, schema: string): Promise<void> {
  const { rows } = await sql<{
    ready: boolean;
  }>`SELECT to_regclass(${`${quoteIdent(schema)}.erasures`}) IS NOT NULL AS ready`.execute(warehouseDb(db));
  if (!rows[0]!.ready) {
    throw new PrivacyError(
      'privacy_not_migrated',
      `the warehouse schema "${schema}" has no erasures table (run punchline migrate first)`,
    );
  }
}

/** What `punchline forget` is asked to erase. */
export interface ForgetRequest {
  /** CPF, 11 digits. */
  readonly cpf: string;
  /** Only this company (CNPJ); default every company the person appears in. */
  readonly company?: string;
  /** Who asks, and a free note (e.g. the request's ticket): recorded in the register. */
  readonly by: string;
  readonly note?: string;
}

/** One company's erasure, as forget left it. */
export interface ErasureOutcome {
  /** Erasure number in the register. */
  readonly id: number;
  readonly company: string;
  /** What replaced the CPF: `erased-<id>`. */
  readonly tombstone: string;
  /** Rows changed now (0 when the erasure was already standing and nothing came back). */
  readonly rows: number;
  readonly alreadyStanding: boolean;
}

/**
 * Erases the person's personal fields in each company (the one asked, or every one the
 * person appears in) and records it, in one transaction. Throws `person_not_found` when
 * no company is given and the warehouse holds no row of the CPF.
 */
export async function forgetPerson(
  pool: LoaderPool,
  schema: string,
  request: ForgetRequest,
): Promise<ErasureOutcome[]> {
  return withTransaction(pool, (client) => forgetIn(client, schema, request));
}

/**
 * What {@link forgetPerson} would erase, counted in a transaction that is rolled back: the same
 * outcomes, and the people as Redis would be searched for them. Nothing is kept (an erasure id
 * it drew is skipped by the next erasure).
 */
export async function previewForget(
  pool: LoaderPool,
  schema: string,
  request: ForgetRequest,
): Promise<{ outcomes: ErasureOutcome[]; people: Awaited<ReturnType<typeof erasedPeople>> }> {
  return rolledBack(pool, async (client) => {
    const outcomes = await forgetIn(client, schema, request);
    return { outcomes, people: await erasedPeople(client, schema, request.cpf) };
  });
}

/** The erasure of {@link forgetPerson}, in the caller's transaction. */
async function forgetIn(
  client: pg.PoolClient,
  schema: string,
  request: ForgetRequest,
): Promise<ErasureOutcome[]> {
  const s = quoteIdent(schema);
  const db = warehouseDb(client, schema);
  const companies = request.company
    ? [request.company]
    : // every CPF the sync stores also lands in the directory of people (addSeenCollaborators)
      (
        await sql<{ company_cnpj: string }>`
            SELECT company_cnpj FROM ${sql.id(schema, DIRECTORY.seen.table)} WHERE cpf = ${request.cpf}
             UNION SELECT company_cnpj FROM ${sql.id(schema, 'erasures')} WHERE cpf = ${request.cpf} AND lifted_at IS NULL
             ORDER BY 1`.execute(db)
      ).rows.map((r) => r.company_cnpj);
  if (companies.length === 0) {
    throw new PrivacyError(
      'person_not_found',
      'the warehouse holds no row of this CPF, so there is nothing to erase (give --company to record the erasure before their data arrives)',
    );
  }
  const out: ErasureOutcome[] = [];
  for (const company of companies) {
    const standing = { company_cnpj: company, cpf: request.cpf, lifted_at: null };
    const created = await db
      .insertInto('erasures')
      .values({
        company_cnpj: company,
        cpf: request.cpf,
        erased_by: request.by,
        note: request.note ?? null,
      })
      .onConflict((oc) => oc.columns(['company_cnpj', 'cpf']).where('lifted_at', 'is', null).doNothing())
      .returning(['id', 'tombstone'])
      .executeTakeFirst();
    const erasure =
      created ??
      (await db
        .selectFrom('erasures')
        .select(['id', 'tombstone'])
        .where((eb) => eb.and(standing))
        .executeTakeFirstOrThrow());
    const rows = await applyErasures(client, schema, company, erasure.id);
    out.push({
      id: Number(erasure.id),
      company,
      tombstone: erasure.tombstone,
      rows,
      alreadyStanding: !created,
    });
  }
  // What other rows say of the person (a manager's name, a CPF in a text), in every table.
  const tables = (await introspectSchema(client, schema)).filter(
    (r) => r.kind === 'table' && !REGISTER_TABLES.has(r.name),
  );
  const done: ErasureOutcome[] = [];
  for (const e of out) {
    let mentions = 0;
    for (const r of tables) {
      mentions += await eraseMentions(
        client,
        schema,
        e.company,
        `${s}.${quoteIdent(r.name)}`,
        r.name,
        r.columns.map((c) => c.name),
      );
    }
    if (mentions > 0) {
      await db
        .updateTable('erasures')
        .set((eb) => ({ rows_erased: eb('rows_erased', '+', mentions), last_applied_at: sql`now()` }))
        .where('id', '=', e.id)
        .execute();
    }
    done.push({ ...e, rows: e.rows + mentions });
  }
  return done;
}

/** The people erased in `cpf`'s standing erasures, as the places outside the warehouse are searched for them. */
export async function erasedPeople(
  db: SqlRunner,
  schema: string,
  cpf: string,
): Promise<{ cpf: string; names: string[]; tombstone: string }[]> {
  return warehouseDb(db, schema)
    .selectFrom('erasures')
    .select((eb) => ['cpf', eb.fn.coalesce('names', sql<string[]>`'{}'`).as('names'), 'tombstone'])
    .where('cpf', '=', cpf)
    .where('lifted_at', 'is', null)
    .orderBy('id')
    .execute();
}

/**
 * Applies the standing erasures of `company` (or only `erasure`) again to the rows a sync
 * brought back, in the caller's transaction if any; returns the rows changed.
 */
export async function applyErasures(
  db: SqlRunner,
  schema: string,
  company: string,
  erasure?: number,
): Promise<number> {
  return callCount(db, sql`${sql.id(schema, 'apply_erasures')}(${company}, ${erasure ?? null})`);
}

/** Runs a generated function that returns a count (bigint: text from a pool that keeps it so). */
async function callCount(db: SqlRunner, call: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT ${call} AS n`.execute(warehouseDb(db));
  return Number(rows[0]!.n);
}

/** What `punchline forget --lift` is asked to lift: in `company`, or in every company. */
export type LiftRequest = Pick<ForgetRequest, 'cpf' | 'company' | 'by'>;

/**
 * Lifts a person's standing erasures and gives the tombstone rows the CPF back; erased
 * fields stay empty until a sync brings them again (`punchline backfill --force`).
 * Returns how many were lifted; throws `erasure_not_found` when none stood.
 */
export async function liftErasure(db: SqlRunner, schema: string, request: LiftRequest): Promise<number> {
  const lifted = await callCount(
    db,
    sql`${sql.id(schema, 'lift_erasures')}(${request.cpf}, ${request.company ?? null}, ${request.by})`,
  );
  if (lifted === 0) {
    throw new PrivacyError(
      'erasure_not_found',
      `no standing erasure of this CPF${request.company ? ` in company ${request.company}` : ''} (see the erasures table)`,
    );
  }
  return lifted;
}

/**
 * After a company's data is loaded: erase its erased people again, then give new CPFs
 * their pseudonym (with a key). Pass the job's transaction client to run both inside it.
 * Returns the rows erased, CPFs mapped, and `staleKey` when a newer key is in use (no
 * pseudonym was written).
 */
export async function upholdPrivacy(
  db: SqlRunner,
  schema: string,
  company: string,
  pseudonymKey: string | undefined,
): Promise<{ erased: number; mapped: number; staleKey: boolean }> {
  const erased = await applyErasures(db, schema, company);
  if (pseudonymKey === undefined) return { erased, mapped: 0, staleKey: false };
  const { mapped, current } = await ensurePseudonyms(db, schema, pseudonymKey, { company });
  return { erased, mapped, staleKey: !current };
}

/** True when `company` has a standing erasure: a sync of it then erases mentions in its stages ({@link eraseMentions}). */
export async function hasStandingErasures(db: SqlRunner, schema: string, company: string): Promise<boolean> {
  const standing = await warehouseDb(db, schema)
    .selectFrom('erasures')
    .select('id')
    .where('company_cnpj', '=', company)
    .where('lifted_at', 'is', null)
    .limit(1)
    .executeTakeFirst();
  return standing !== undefined;
}

/**
 * Replaces `company`'s erased people with their tombstone in `relation` (a table, or a
 * stage `pg_temp.<stage>`) holding rows of `table` (erase_mentions: own-name columns are
 * skipped). Returns the rows changed.
 */
export async function eraseMentions(
  db: SqlRunner,
  schema: string,
  company: string,
  relation: string,
  table: string,
  columns: readonly string[],
): Promise<number> {
  return callCount(
    db,
    sql`${sql.id(schema, 'erase_mentions')}(${company}, ${relation}::regclass, ${ownNameColumns(table, columns)}::text[])`,
  );
}
