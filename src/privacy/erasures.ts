/**
 * The right to be forgotten in the warehouse: `punchline forget` records an erasure per
 * company in `erasures` and applies it at once; every later sync of the company applies
 * the standing erasures again ({@link applyErasures}), so the API cannot bring the person
 * back; `forget --lift` ends one. The work itself is done by the functions migrate
 * generates (erasure-functions.ts); these are their thin callers.
 */
import { sql } from 'kysely';
import { DIRECTORY } from '../resources/index.js';
import { quoteIdent, warehouseDb, type SqlRunner } from '../warehouse/db.js';
import { introspectSchema } from '../warehouse/introspection.js';
import { PrivacyError } from '../warehouse/errors.js';
import { withTransaction, type TransactionPool as LoaderPool } from '../warehouse/transaction.js';
import { ensurePseudonyms } from './pseudonyms.js';
import { ownNameColumns } from './personal-data.js';

/** Fails with a clear message when `schema` lacks the privacy tables (not migrated yet). */
export async function checkPrivacyReady(db: SqlRunner, schema: string): Promise<void> {
  const { rows } = await sql<{ ready: boolean }>`SELECT to_regclass(${`${quoteIdent(schema)}.erasures`}) IS NOT NULL AS ready`.execute(warehouseDb(db));
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
  /** Only this company (CNPJ, 14 digits); default every company the person appears in. */
  readonly company?: string;
  /** Who asks (recorded in the register). */
  readonly by: string;
  /** Free note recorded with it (e.g. the request's ticket). */
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
  /** True when the erasure already stood before this call. */
  readonly alreadyStanding: boolean;
}

/**
 * Erases the person's personal fields in each company (the one asked, or every one the
 * person appears in) and records it, in one transaction. Throws `person_not_found` when
 * no company is given and the warehouse holds no row of the CPF.
 */
export async function forgetPerson(pool: LoaderPool, schema: string, request: ForgetRequest): Promise<ErasureOutcome[]> {
  const s = quoteIdent(schema);
  return withTransaction(pool, async (client) => {
    const db = warehouseDb(client, schema);
    const companies = request.company
      ? [request.company]
      : (
          // every CPF the sync stores also lands in the directory of people (addSeenCollaborators)
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
        .values({ company_cnpj: company, cpf: request.cpf, erased_by: request.by, note: request.note ?? null })
        .onConflict((oc) => oc.columns(['company_cnpj', 'cpf']).where('lifted_at', 'is', null).doNothing())
        .returning(['id', 'tombstone'])
        .executeTakeFirst();
      const erasure = created ?? (await db.selectFrom('erasures').select(['id', 'tombstone']).where((eb) => eb.and(standing)).executeTakeFirstOrThrow());
      const rows = await applyErasures(client, schema, company, erasure.id);
      out.push({ id: Number(erasure.id), company, tombstone: erasure.tombstone, rows, alreadyStanding: !created });
    }
    // What other rows say of the person (a manager's name, a CPF in a text), in every table.
    const tables = (await introspectSchema(client, schema)).filter((r) => r.kind === 'table' && !REGISTER_TABLES.has(r.name));
    const done: ErasureOutcome[] = [];
    for (const e of out) {
      let mentions = 0;
      for (const r of tables) {
        mentions += await eraseMentions(client, schema, e.company, `${s}.${quoteIdent(r.name)}`, r.name, r.columns.map((c) => c.name));
      }
      if (mentions > 0) {
        await db.updateTable('erasures').set((eb) => ({ rows_erased: eb('rows_erased', '+', mentions), last_applied_at: sql`now()` })).where('id', '=', e.id).execute();
      }
      done.push({ ...e, rows: e.rows + mentions });
    }
    return done;
  });
}

/** Tables of the erasure machinery itself, which forget leaves as they are. */
const REGISTER_TABLES: ReadonlySet<string> = new Set(['erasures', 'cpf_pseudonyms']);

/** The people erased in `cpf`'s standing erasures, as the places outside the warehouse are searched for them. */
export async function erasedPeople(db: SqlRunner, schema: string, cpf: string): Promise<{ cpf: string; names: string[]; tombstone: string }[]> {
  return warehouseDb(db, schema)
    .selectFrom('erasures')
    .select((eb) => ['cpf', eb.fn.coalesce('names', sql<string[]>`'{}'`).as('names'), 'tombstone'])
    .where('cpf', '=', cpf)
    .where('lifted_at', 'is', null)
    .orderBy('id')
    .execute();
}

/**
 * Applies the standing erasures of `company` again (or only `erasure`): the person's rows
 * the sync brought back are moved to the tombstone and their personal fields erased. One
 * statement, so it runs in the caller's transaction when there is one. Returns the rows
 * changed (0 at once when the company has no standing erasure).
 */
export async function applyErasures(db: SqlRunner, schema: string, company: string, erasure?: number): Promise<number> {
  return callCount(db, sql`${sql.id(schema, 'apply_erasures')}(${company}, ${erasure ?? null})`);
}

/** Runs a generated function that returns a count (bigint: a number, or text from a pool that keeps bigint as text). */
async function callCount(db: SqlRunner, call: ReturnType<typeof sql>): Promise<number> {
  const { rows } = await sql<{ n: number | string }>`SELECT ${call} AS n`.execute(warehouseDb(db));
  return Number(rows[0]!.n);
}

/** What `punchline forget --lift` is asked to lift. */
export interface LiftRequest {
  readonly cpf: string;
  /** Only in this company; default in every company. */
  readonly company?: string;
  /** Who lifts it. */
  readonly by: string;
}

/**
 * Lifts the standing erasures of a person: records who and when, and gives the rows
 * kept under the tombstone the CPF back. Fields that were erased stay empty until a sync
 * of their window brings them again (`punchline backfill --force`). Returns how many
 * erasures were lifted; throws `erasure_not_found` when none stood.
 */
export async function liftErasure(db: SqlRunner, schema: string, request: LiftRequest): Promise<number> {
  const lifted = await callCount(db, sql`${sql.id(schema, 'lift_erasures')}(${request.cpf}, ${request.company ?? null}, ${request.by})`);
  if (lifted === 0) {
    throw new PrivacyError(
      'erasure_not_found',
      `no standing erasure of this CPF${request.company ? ` in company ${request.company}` : ''} (see the erasures table)`,
    );
  }
  return lifted;
}

/** What {@link upholdPrivacy} did after a sync job. */
export interface PrivacyUpkeep {
  /** Rows of erased people erased again. */
  erased: number;
  /** CPFs given a pseudonym (0 without a key). */
  mapped: number;
  /** The key given is older than one already used on the warehouse: no pseudonym was written. */
  staleKey: boolean;
}

/**
 * What every sync of a company must do once its data is loaded: erase again the people
 * erased in that company, then give new CPFs their pseudonym (when a key is configured).
 * Pass the job's transaction client to run both inside it.
 */
export async function upholdPrivacy(
  db: SqlRunner,
  schema: string,
  company: string,
  pseudonymKey: string | undefined,
): Promise<PrivacyUpkeep> {
  const erased = await applyErasures(db, schema, company);
  if (pseudonymKey === undefined) return { erased, mapped: 0, staleKey: false };
  const { mapped, current } = await ensurePseudonyms(db, schema, pseudonymKey, { company });
  return { erased, mapped, staleKey: !current };
}

/** True when `company` has a standing erasure: a sync of it then erases mentions in its stages ({@link eraseMentions}). */
export async function hasStandingErasures(db: SqlRunner, schema: string, company: string): Promise<boolean> {
  const standing = await warehouseDb(db, schema).selectFrom('erasures').select('id').where('company_cnpj', '=', company).where('lifted_at', 'is', null).limit(1).executeTakeFirst();
  return standing !== undefined;
}

/**
 * Replaces the CPF and names of `company`'s erased people with their tombstone in every
 * text column of `relation` (a qualified table, or a load's stage, `pg_temp.<stage>`)
 * holding rows of warehouse table `table`, but the columns that hold a row's own name
 * (a namesake keeps theirs); a JSON value that mentions them is dropped. Returns the rows
 * changed.
 */
export async function eraseMentions(db: SqlRunner, schema: string, company: string, relation: string, table: string, columns: readonly string[]): Promise<number> {
  return callCount(db, sql`${sql.id(schema, 'erase_mentions')}(${company}, ${relation}::regclass, ${ownNameColumns(table, columns)}::text[])`);
}
