/**
 * Pseudonyms of CPFs for the analyst views (`cpf_pseudonyms`, the same everywhere until the
 * key changes): HMAC-SHA-256 with PSEUDONYM_KEY, computed here because the key must never
 * reach the warehouse, whose readers can then neither compute nor reverse one.
 * `pseudonym_keys` numbers keys as they come into use and each mapping carries its key's
 * generation: a process on an older key writes nothing, and a write racing a rotation only
 * replaces an older generation's mapping, never the new key's.
 */
import { createHmac } from 'node:crypto';
import { sql } from 'kysely';
import { DIRECTORY } from '../resources/index.js';
import { quoteIdent, warehouseDb, type SqlRunner, type WarehouseDb } from '../warehouse/db.js';

/** Hex digits of a pseudonym: 80 bits, no collision in any realistic number of people. */
const PSEUDONYM_HEX_DIGITS = 20;
/** Rows sent per INSERT when mapping many CPFs. */
const BATCH = 5_000;

/** The pseudonym of `cpf` under `key`: the first 80 bits of HMAC-SHA-256, as 20 hex digits. */
export function pseudonymOf(key: string, cpf: string): string {
  // The "cpf:" domain keeps pseudonyms of other identifiers, if ever added, apart.
  return createHmac('sha256', key).update(`cpf:${cpf}`).digest('hex').slice(0, PSEUDONYM_HEX_DIGITS);
}

/** A fingerprint of `key` that tells keys apart without revealing them (stored as key_id). */
export function keyIdOf(key: string): string {
  return createHmac('sha256', key).update('punchline pseudonym key id').digest('hex').slice(0, 16);
}

/** What {@link ensurePseudonyms} did. */
export interface PseudonymStats {
  /** CPFs given a pseudonym of the current key (new ones, and ones of an older key). */
  mapped: number;
  /** Mappings of an older key whose CPF is gone, removed (only with `prune`). */
  pruned: number;
  /** False when a newer key is in use on this warehouse: nothing was written. */
  current: boolean;
}

/** Options of {@link ensurePseudonyms}. */
export interface EnsurePseudonymsOptions {
  /** Only the CPFs of this company (what a sync job of the company touched). */
  company?: string;
  /** Also remove the older key's mappings left once every CPF has the current one. Ignored with `company`. */
  prune?: boolean;
  /** Make `key` current even if a newer key was used (`punchline pseudonyms`); else it writes nothing. */
  activate?: boolean;
}

/**
 * Registers `keyId` in `pseudonym_keys` when new (it becomes the newest), or makes it the
 * newest again with `activate`; then tells its generation and whether no newer key was used.
 */
async function standingOf(db: WarehouseDb, schema: string, keyId: string, activate: boolean) {
  const newest = db.selectFrom('pseudonym_keys').select((eb) => eb.fn.max('generation').as('g'));
  await db
    .insertInto('pseudonym_keys')
    .values({ key_id: keyId })
    .onConflict((oc) =>
      activate
        ? oc
            .column('key_id')
            .doUpdateSet({
              generation: sql`nextval(${`${quoteIdent(schema)}.pseudonym_key_generations`}::regclass)`,
              activated_at: sql`now()`,
            })
            .where('pseudonym_keys.generation', '<', newest)
        : oc.column('key_id').doNothing(),
    )
    .execute();
  return db
    .selectFrom('pseudonym_keys')
    .select((eb) => ['generation', eb('generation', '=', newest).as('current')])
    .$narrowType<{ current: boolean }>()
    .where('key_id', '=', keyId)
    .executeTakeFirstOrThrow();
}

/**
 * Gives every CPF of the directory of people (where every CPF the sync stores lands, see
 * addSeenCollaborators) without one a pseudonym of `key`, also replacing an older key's:
 * how a rotation reaches the warehouse. With a newer key in use, writes nothing
 * (`current: false`). Idempotent, safe concurrently, in a transaction or on its own.
 */
export async function ensurePseudonyms(
  runner: SqlRunner,
  schema: string,
  key: string,
  options: EnsurePseudonymsOptions = {},
): Promise<PseudonymStats> {
  const db = warehouseDb(runner, schema);
  const keyId = keyIdOf(key);
  const { generation, current } = await standingOf(db, schema, keyId, options.activate === true);
  if (!current) return { mapped: 0, pruned: 0, current: false };
  const company = options.company ?? null;
  const { rows } = await sql<{ cpf: string }>`
    SELECT DISTINCT c.cpf FROM ${sql.id(schema, DIRECTORY.seen.table)} c
     WHERE (${company}::text IS NULL OR c.company_cnpj = ${company}) AND c.cpf ~ '^[0-9]{11}$'
       AND NOT EXISTS (SELECT 1 FROM ${sql.id(schema, 'cpf_pseudonyms')} p WHERE p.cpf = c.cpf AND p.key_generation >= ${generation})`.execute(
    db,
  );
  for (let i = 0; i < rows.length; i += BATCH) {
    const mappings = rows.slice(i, i + BATCH).map(({ cpf }) => ({
      cpf,
      pseudonym: pseudonymOf(key, cpf),
      key_id: keyId,
      key_generation: generation,
    }));
    // Only a mapping of an older key is replaced: a newer key's is never written over.
    await db
      .insertInto('cpf_pseudonyms')
      .values(mappings)
      .onConflict((oc) =>
        oc
          .column('cpf')
          .doUpdateSet((eb) => ({
            pseudonym: eb.ref('excluded.pseudonym'),
            key_id: eb.ref('excluded.key_id'),
            key_generation: eb.ref('excluded.key_generation'),
            computed_at: sql`now()`,
          }))
          .whereRef('cpf_pseudonyms.key_generation', '<', 'excluded.key_generation'),
      )
      .execute();
  }
  let pruned = 0;
  if (options.prune && options.company === undefined) {
    const gone = await db
      .deleteFrom('cpf_pseudonyms')
      .where('key_generation', '<', generation)
      .executeTakeFirst();
    pruned = Number(gone.numDeletedRows);
  }
  return { mapped: rows.length, pruned, current: true };
}
