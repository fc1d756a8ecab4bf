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
import { sql } from 'kysely';
import { warehouseDb, type SqlRunner, type WarehouseDb } from '../warehouse/db.js';

/** A session that can be given back to its pool. */
export interface ClaimSession extends SqlRunner {
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
/** A run number (64 bits, beyond a JavaScript number) compared as the bigint it is. */
const bigint = (run: string | null) => sql<number | null>`${run}::bigint`;

/** The database's clock, as text with all its precision (claims are compared with times it wrote). */
export async function databaseNow(db: SqlRunner): Promise<string> {
  const { rows } = await sql<{ now: string }>`SELECT clock_timestamp()::text AS now`.execute(warehouseDb(db));
  return rows[0]!.now;
}

/** The claims of one `--apply` run; see the file comment. Close it when the writes are done. */
export class ClaimRun {
  readonly #session: ClaimSession;
  readonly #scope: ClaimScope;
  readonly #db: WarehouseDb;
  /** The run's number (a signed 64-bit integer, as text). */
  readonly run: string;

  private constructor(session: ClaimSession, scope: ClaimScope, run: string) {
    this.#session = session;
    this.#scope = scope;
    this.#db = warehouseDb(session, scope.schema);
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

  /** The receipt of row `key`, to update or delete. */
  #receipt(key: string) {
    return { company_cnpj: this.#scope.company, kind: this.#scope.kind, row_key: key };
  }

  /** Claims the row `key` (of input line `line`) for this run; waits while another live run holds it. */
  async claim(key: string, line: number, options: ClaimOptions): Promise<Claim> {
    const ours = {
      claim_run: this.run,
      claimed_at: sql<Date>`now()`,
      connection: this.#scope.connection,
      source_file: this.#scope.file,
      source_line: line,
    };
    const receipt = this.#receipt(key);
    const update = () => this.#db.updateTable('push_receipts').where((eb) => eb.and(receipt));
    for (;;) {
      const inserted = await this.#db
        .insertInto('push_receipts')
        .values({ ...receipt, state: 'claimed', ...ours })
        .onConflict((oc) => oc.columns(['company_cnpj', 'kind', 'row_key']).doNothing())
        .returning('row_key')
        .executeTakeFirst();
      if (inserted) return { kind: 'mine', recheck: false };
      const row = await this.#db
        .selectFrom('push_receipts')
        .where((eb) => eb.and(receipt))
        .select((eb) => [
          'state',
          'created_id',
          'source_file',
          'source_line',
          sql<string | null>`claim_run::text`.as('claim_run'),
          eb('created_at', '>=', sql<Date>`${options.checkedAt}::timestamptz`).as('since_check'),
          sql<boolean>`claim_run IS NOT NULL AND NOT (CASE WHEN pg_try_advisory_lock(claim_run) THEN pg_advisory_unlock(claim_run) ELSE false END)`.as(
            'alive',
          ),
        ])
        .executeTakeFirst();
      if (!row) continue; // its claim was just given up: try again
      if (row.state === 'created') {
        if (row.since_check === true) {
          return {
            kind: 'created',
            ...(row.created_id ? { id: row.created_id } : {}),
            file: row.source_file ?? '',
            line: row.source_line ?? 0,
          };
        }
        // Created before this run's check, which found it gone from the API: it was removed since.
        const taken = await update()
          .set({ state: 'claimed', ...ours, created_at: null, created_id: null })
          .where('state', '=', 'created')
          .where('created_at', '<', sql<Date>`${options.checkedAt}::timestamptz`)
          .returning('row_key')
          .executeTakeFirst();
        if (taken) return { kind: 'mine', recheck: false };
        continue;
      }
      if (row.alive === true) {
        // Another run is writing it: wait for its outcome.
        if (options.signal?.aborted) return { kind: 'stopped' };
        await sleep(options.pollMs ?? 100);
        continue;
      }
      // Claimed without an outcome by a run that is gone, or whose write had no conclusive answer.
      const taken = await update()
        .set(ours)
        .where('state', '=', 'claimed')
        .where('claim_run', 'is not distinct from', bigint(row.claim_run))
        .returning('row_key')
        .executeTakeFirst();
      if (taken) return { kind: 'mine', recheck: true };
    }
  }

  /** This run's claim of row `key`, to settle. */
  #mine(key: string) {
    return this.#db
      .updateTable('push_receipts')
      .where((eb) => eb.and({ ...this.#receipt(key), claim_run: bigint(this.run) }));
  }

  /** Records that the row's entity exists (written by this run, or found by its check): `id` when known. */
  async created(key: string, line: number, id?: string): Promise<void> {
    await this.#mine(key)
      .set({
        state: 'created',
        created_at: sql`now()`,
        created_id: id ?? null,
        claim_run: null,
        source_line: line,
      })
      .execute();
  }

  /** Gives the claim up: the write certainly did not take effect. */
  async release(key: string): Promise<void> {
    await this.#db
      .deleteFrom('push_receipts')
      .where((eb) => eb.and({ ...this.#receipt(key), state: 'claimed', claim_run: bigint(this.run) }))
      .execute();
  }

  /** Leaves the claim to be resolved by reading the API: the write may or may not have taken effect. */
  async unresolved(key: string): Promise<void> {
    await this.#mine(key).set({ claim_run: null }).where('state', '=', 'claimed').execute();
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
