/**
 * Claims of `punchline push --apply` (sql/017_push_claims_key_generations.sql): a row
 * is claimed in `push_receipts` before its write and its outcome recorded after, so
 * that two runs of one file at once, or a rerun while the first is still writing, send
 * each row once. The API has no idempotency key, so the claim is the only thing two
 * runs can agree on.
 *
 * A run is numbered at random and holds a session advisory lock of its number for as
 * long as it writes: a claim whose run still holds its lock is being written, and
 * another run waits for its outcome; a claim whose run is gone (killed), or whose
 * write ended without a conclusive answer, is taken over, and the API is read again
 * before anything is sent for it (the caller's check before writing).
 */
import { randomBytes } from 'node:crypto';
import { quoteIdent } from '../warehouse/db.js';
import type { Queryable } from '../runtime/run-records.js';

/** A session that can be given back to its pool. */
export interface ClaimSession extends Queryable {
  /** Returns the session to the pool (`true`: close it instead). */
  release(destroy?: boolean): void;
}

/** The pool a claim run takes its session from. */
export interface ClaimPool {
  /** A session of its own, for the run's lock. */
  connect(): Promise<ClaimSession>;
}

/** Where and for whom a run writes. */
export interface ClaimScope {
  /** Warehouse schema. */
  readonly schema: string;
  /** CNPJ of the token's company. */
  readonly company: string;
  /** Push kind. */
  readonly kind: string;
  /** Connection name. */
  readonly connection: string;
  /** Input file, as given. */
  readonly file: string;
}

/** What claiming a row gave. */
export type Claim =
  /** The row is this run's to write; `recheck`: an earlier run may have written it, read the API first. */
  | { readonly kind: 'mine'; readonly recheck: boolean }
  /** Another run created the entity since this run's check. */
  | { readonly kind: 'created'; readonly id?: string; readonly file: string; readonly line: number }
  /** The run was stopped while it waited for another run's outcome. */
  | { readonly kind: 'stopped' };

/** Options of {@link ClaimRun.claim}. */
export interface ClaimOptions {
  /** Database time at which this run's check before writing began ({@link databaseNow}). */
  readonly checkedAt: string;
  /** Stops a wait for another run. */
  readonly signal?: AbortSignal;
  /** Pause between two looks at a claim another run holds, ms (default 100). */
  readonly pollMs?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The database's clock, as text with all its precision (claims are compared with times it wrote). */
export async function databaseNow(db: Queryable): Promise<string> {
  const r = await db.query('SELECT clock_timestamp()::text AS now');
  return String(r.rows[0]!.now);
}

/** The claims of one `--apply` run; see the file comment. Close it when the writes are done. */
export class ClaimRun {
  readonly #session: ClaimSession;
  readonly #scope: ClaimScope;
  readonly #table: string;
  /** The run's number (a signed 64-bit integer, as text). */
  readonly run: string;

  private constructor(session: ClaimSession, scope: ClaimScope, run: string) {
    this.#session = session;
    this.#scope = scope;
    this.#table = `${quoteIdent(scope.schema)}.push_receipts`;
    this.run = run;
  }

  /** Numbers a run and takes its lock on a session of `pool`. */
  static async open(pool: ClaimPool, scope: ClaimScope): Promise<ClaimRun> {
    const session = await pool.connect();
    try {
      const run = randomBytes(8).readBigInt64BE().toString();
      await session.query('SELECT pg_advisory_lock($1::bigint)', [run]);
      return new ClaimRun(session, scope, run);
    } catch (err) {
      session.release(true);
      throw err;
    }
  }

  /** The primary key of a row's receipt, as the first three parameters. */
  #key(key: string): unknown[] {
    return [this.#scope.company, this.#scope.kind, key];
  }

  /** Claims the row `key` (of input line `line`) for this run; waits while another live run holds it. */
  async claim(key: string, line: number, options: ClaimOptions): Promise<Claim> {
    const t = this.#table;
    const where = 'company_cnpj = $1 AND kind = $2 AND row_key = $3';
    const ours = [this.run, this.#scope.connection, this.#scope.file, line];
    for (;;) {
      const inserted = await this.#session.query(
        `INSERT INTO ${t} (company_cnpj, kind, row_key, state, claim_run, claimed_at, connection, source_file, source_line)
         VALUES ($1, $2, $3, 'claimed', $4, now(), $5, $6, $7) ON CONFLICT (company_cnpj, kind, row_key) DO NOTHING RETURNING 1`,
        [...this.#key(key), ...ours],
      );
      if (inserted.rows.length > 0) return { kind: 'mine', recheck: false };
      const found = await this.#session.query(
        `SELECT state, claim_run::text AS claim_run, created_at >= $4::timestamptz AS since_check, created_id, source_file, source_line,
                claim_run IS NOT NULL AND NOT (CASE WHEN pg_try_advisory_lock(claim_run) THEN pg_advisory_unlock(claim_run) ELSE false END) AS alive
           FROM ${t} WHERE ${where}`,
        [...this.#key(key), options.checkedAt],
      );
      const row = found.rows[0];
      if (!row) continue; // its claim was just given up: try again
      if (row.state === 'created') {
        if (row.since_check === true) {
          return {
            kind: 'created',
            ...(row.created_id ? { id: String(row.created_id) } : {}),
            file: String(row.source_file),
            line: Number(row.source_line),
          };
        }
        // Created before this run's check, which found it gone from the API: it was removed since.
        const taken = await this.#session.query(
          `UPDATE ${t} SET state = 'claimed', claim_run = $4, claimed_at = now(), created_at = NULL, created_id = NULL,
                  connection = $5, source_file = $6, source_line = $7
            WHERE ${where} AND state = 'created' AND created_at < $8::timestamptz RETURNING 1`,
          [...this.#key(key), ...ours, options.checkedAt],
        );
        if (taken.rows.length > 0) return { kind: 'mine', recheck: false };
        continue;
      }
      if (row.alive === true) {
        // Another run is writing it: wait for its outcome.
        if (options.signal?.aborted) return { kind: 'stopped' };
        await sleep(options.pollMs ?? 100);
        continue;
      }
      // Claimed without an outcome by a run that is gone, or whose write had no conclusive answer.
      const taken = await this.#session.query(
        `UPDATE ${t} SET claim_run = $4, claimed_at = now(), connection = $5, source_file = $6, source_line = $7
          WHERE ${where} AND state = 'claimed' AND claim_run IS NOT DISTINCT FROM $8::bigint RETURNING 1`,
        [...this.#key(key), ...ours, row.claim_run],
      );
      if (taken.rows.length > 0) return { kind: 'mine', recheck: true };
    }
  }

  /** Records that the row's entity exists (written by this run, or found by its check): `id` when known. */
  async created(key: string, line: number, id?: string): Promise<void> {
    await this.#session.query(
      `UPDATE ${this.#table} SET state = 'created', created_at = now(), created_id = $5, claim_run = NULL, source_line = $6
        WHERE company_cnpj = $1 AND kind = $2 AND row_key = $3 AND claim_run = $4`,
      [...this.#key(key), this.run, id ?? null, line],
    );
  }

  /** Gives the claim up: the write certainly did not take effect. */
  async release(key: string): Promise<void> {
    await this.#session.query(
      `DELETE FROM ${this.#table} WHERE company_cnpj = $1 AND kind = $2 AND row_key = $3 AND state = 'claimed' AND claim_run = $4`,
      [...this.#key(key), this.run],
    );
  }

  /** Leaves the claim to be resolved by reading the API: the write may or may not have taken effect. */
  async unresolved(key: string): Promise<void> {
    await this.#session.query(
      `UPDATE ${this.#table} SET claim_run = NULL WHERE company_cnpj = $1 AND kind = $2 AND row_key = $3 AND state = 'claimed' AND claim_run = $4`,
      [...this.#key(key), this.run],
    );
  }

  /** Ends the run: its lock is released, so claims it left become another run's to resolve. */
  async close(): Promise<void> {
    try {
      await this.#session.query('SELECT pg_advisory_unlock($1::bigint)', [this.run]);
      this.#session.release();
    } catch {
      this.#session.release(true);
    }
  }
}
