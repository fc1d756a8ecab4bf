/**
 * Pseudonyms of CPFs for the analyst views: a keyed hash (HMAC-SHA-256 with
 * PSEUDONYM_KEY) computed here, in punchline, because the key must never reach the
 * warehouse — whoever reads the warehouse can neither compute a CPF's pseudonym nor
 * reverse one. The same CPF gets the same pseudonym in every table, company and sync
 * until the key changes; `cpf_pseudonyms` holds the mapping the views join.
 *
 * Keys are numbered in `pseudonym_keys` in the order they came into use, and each
 * mapping carries the generation of its key. A key used for the first time becomes the
 * current one; a process still holding an older key after a rotation writes nothing,
 * and even a write racing the rotation only ever replaces a mapping of an older
 * generation, so workers on the old key cannot overwrite the new key's pseudonyms.
 */
import { createHmac } from 'node:crypto';
import { DIRECTORY } from '../resources/index.js';
import { quoteIdent } from '../warehouse/db.js';
import { rowsOf, type SqlQueryable } from '../warehouse/introspection.js';

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
  /** Mappings of an older key whose CPF is gone from the warehouse, removed (only with `prune`). */
  pruned: number;
  /** False when a newer key is in use on this warehouse: nothing was written. */
  current: boolean;
}

/** Options of {@link ensurePseudonyms}. */
export interface EnsurePseudonymsOptions {
  /** Only the CPFs of this company (what a sync job of the company touched). */
  company?: string;
  /**
   * Also remove the mappings of an older key left over once every CPF is mapped with the
   * current one (their CPF is gone from the warehouse). Ignored with `company`.
   */
  prune?: boolean;
  /**
   * Make `key` the current key even when a newer one has been used (an operator's
   * choice: `punchline pseudonyms`); without it an older key writes nothing.
   */
  activate?: boolean;
}

/** Where `keyId` stands among the keys of the warehouse. */
interface KeyStanding {
  /** Its generation. */
  readonly generation: string;
  /** No newer key has been used. */
  readonly current: boolean;
}

/**
 * Registers `keyId` in `pseudonym_keys` when it is new (it becomes the newest key), or
 * makes it the newest again with `activate`; then tells its generation and whether it
 * is the current key.
 */
async function standingOf(db: SqlQueryable, schema: string, keyId: string, activate: boolean): Promise<KeyStanding> {
  const s = quoteIdent(schema);
  if (activate) {
    await db.query(
      `INSERT INTO ${s}.pseudonym_keys AS k (key_id) VALUES ($1)
       ON CONFLICT (key_id) DO UPDATE SET generation = nextval($2::regclass), activated_at = now()
        WHERE k.generation < (SELECT max(generation) FROM ${s}.pseudonym_keys)`,
      [keyId, `${s}.pseudonym_key_generations`],
    );
  } else {
    await db.query(`INSERT INTO ${s}.pseudonym_keys (key_id) VALUES ($1) ON CONFLICT (key_id) DO NOTHING`, [keyId]);
  }
  const [row] = await rowsOf<{ generation: string; current: boolean }>(
    db,
    `SELECT generation::text AS generation, generation = (SELECT max(generation) FROM ${s}.pseudonym_keys) AS current
       FROM ${s}.pseudonym_keys WHERE key_id = $1`,
    [keyId],
  );
  return row!;
}

/**
 * Gives every CPF of the directory of people (where every CPF the sync stores lands, see
 * addSeenCollaborators) a pseudonym of `key`: new CPFs, and CPFs mapped with an older
 * key, which is how a key rotation reaches the warehouse. When a newer key has been
 * used, writes nothing and says so (`current: false`). Idempotent, and safe to run
 * concurrently, with the same key or not; run it in the caller's transaction or on its own.
 */
export async function ensurePseudonyms(
  db: SqlQueryable,
  schema: string,
  key: string,
  options: EnsurePseudonymsOptions = {},
): Promise<PseudonymStats> {
  const s = quoteIdent(schema);
  const keyId = keyIdOf(key);
  const standing = await standingOf(db, schema, keyId, options.activate === true);
  if (!standing.current) return { mapped: 0, pruned: 0, current: false };
  const rows = await rowsOf<{ cpf: string }>(
    db,
    `SELECT DISTINCT c.cpf FROM ${s}.${quoteIdent(DIRECTORY.seen.table)} c
      WHERE ($1::text IS NULL OR c.company_cnpj = $1) AND c.cpf ~ '^[0-9]{11}$'
        AND NOT EXISTS (SELECT 1 FROM ${s}.cpf_pseudonyms p WHERE p.cpf = c.cpf AND p.key_generation >= $2::bigint)`,
    [options.company ?? null, standing.generation],
  );
  for (let i = 0; i < rows.length; i += BATCH) {
    const cpfs = rows.slice(i, i + BATCH).map((r) => r.cpf);
    // Only a mapping of an older key is replaced: a newer key's is never written over.
    await db.query(
      `INSERT INTO ${s}.cpf_pseudonyms (cpf, pseudonym, key_id, key_generation)
       SELECT cpf, pseudonym, $3, $4::bigint FROM unnest($1::text[], $2::text[]) AS m(cpf, pseudonym)
       ON CONFLICT (cpf) DO UPDATE SET pseudonym = excluded.pseudonym, key_id = excluded.key_id,
         key_generation = excluded.key_generation, computed_at = now()
        WHERE cpf_pseudonyms.key_generation < excluded.key_generation`,
      [cpfs, cpfs.map((c) => pseudonymOf(key, c)), keyId, standing.generation],
    );
  }
  let pruned = 0;
  if (options.prune && options.company === undefined) {
    const [gone] = await rowsOf<{ n: number }>(
      db,
      `WITH gone AS (DELETE FROM ${s}.cpf_pseudonyms p WHERE p.key_generation < $1::bigint RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [standing.generation],
    );
    pruned = gone!.n;
  }
  return { mapped: rows.length, pruned, current: true };
}
