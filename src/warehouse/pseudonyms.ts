/**
 * Pseudonyms of CPFs for the analyst views: a keyed hash (HMAC-SHA-256 with
 * PSEUDONYM_KEY) computed here, in punchline, because the key must never reach the
 * warehouse — whoever reads the warehouse can neither compute a CPF's pseudonym nor
 * reverse one. The same CPF gets the same pseudonym in every table, company and sync
 * until the key changes; `cpf_pseudonyms` holds the mapping the views join.
 */
import { createHmac } from 'node:crypto';
import { quoteIdent } from './db.js';
import { rowsOf, type SqlQueryable } from './catalog.js';

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
}

/**
 * Gives every CPF of `collaborators` (where every CPF the sync stores lands, see
 * addSeenCollaborators) a pseudonym of `key`: new CPFs, and CPFs mapped with an older
 * key, which is how a key rotation reaches the warehouse. Idempotent, and safe to run
 * concurrently with the same key; run it in the caller's transaction or on its own.
 */
export async function ensurePseudonyms(
  db: SqlQueryable,
  schema: string,
  key: string,
  options: EnsurePseudonymsOptions = {},
): Promise<PseudonymStats> {
  const s = quoteIdent(schema);
  const keyId = keyIdOf(key);
  const rows = await rowsOf<{ cpf: string }>(
    db,
    `SELECT DISTINCT c.cpf FROM ${s}.collaborators c
      WHERE ($1::text IS NULL OR c.company_cnpj = $1) AND c.cpf ~ '^[0-9]{11}$'
        AND NOT EXISTS (SELECT 1 FROM ${s}.cpf_pseudonyms p WHERE p.cpf = c.cpf AND p.key_id = $2)`,
    [options.company ?? null, keyId],
  );
  for (let i = 0; i < rows.length; i += BATCH) {
    const cpfs = rows.slice(i, i + BATCH).map((r) => r.cpf);
    await db.query(
      `INSERT INTO ${s}.cpf_pseudonyms (cpf, pseudonym, key_id)
       SELECT cpf, pseudonym, $3 FROM unnest($1::text[], $2::text[]) AS m(cpf, pseudonym)
       ON CONFLICT (cpf) DO UPDATE SET pseudonym = excluded.pseudonym, key_id = excluded.key_id, computed_at = now()
        WHERE cpf_pseudonyms.key_id IS DISTINCT FROM excluded.key_id`,
      [cpfs, cpfs.map((c) => pseudonymOf(key, c)), keyId],
    );
  }
  let pruned = 0;
  if (options.prune && options.company === undefined) {
    const [gone] = await rowsOf<{ n: number }>(
      db,
      `WITH gone AS (DELETE FROM ${s}.cpf_pseudonyms p WHERE p.key_id <> $1 RETURNING 1) SELECT count(*)::int AS n FROM gone`,
      [keyId],
    );
    pruned = gone!.n;
  }
  return { mapped: rows.length, pruned };
}
