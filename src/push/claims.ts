/**
 * Claims of `punchline push --apply` (sql/017_push_claims_key_generations.sql): a row
 * is claimed in `push_receipts` before its write and its outcome recorded after, so
 * that two runs of one file at once, or a rerun while the first is still writing, send
 * each row once. The API has no idempotency key, so the claim is the only thing two
 * runs can agree on.
 *
 * A run is numbered at random and owns its claims by a lease on their rows
 * (sql/051_push_claim_leases.sql), not by a session lock, so claims hold through a
 * transaction-pooling proxy (pgbouncer pool_mode = transaction) that gives each statement
 * any server session. A claim is taken by one statement (insert, or take over a claim
 * whose lease has passed), renewed while the run works, and ended when the run closes.
 * A claim whose lease is ahead is being written, and another run waits for its outcome;
 * a claim whose lease has passed (its run was killed), or whose write ended without a
 * conclusive answer, is taken over, and the API is read again before anything is sent
 * for it (the caller's check before writing). A run that stalls longer than its lease
 * can lose a claim to another run; that run reads the API first, so the risk is a write
 * still in flight when it reads: the lease is many times a write's timeout.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { warehouseDb, type SqlRunner, type WarehouseDb } from '../warehouse/db.js';

/** How long a claim holds without renewal by default, ms. */
export const DEFAULT_CLAIM_LEASE_MS = 120_000;

/** Options of {@link ClaimRun.open}. */
export interface ClaimRunOptions {
  /** How long a claim holds without renewal, ms (default {@link DEFAULT_CLAIM_LEASE_MS}); renewed every third of it. */
  readonly leaseMs?: number;
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
  readonly #scope: ClaimScope;
  readonly #db: WarehouseDb;
  readonly #leaseMs: number;
  readonly #renewal: NodeJS.Timeout;
  #renewing: Promise<void> = Promise.resolve();
  /** The run's number (a signed 64-bit integer, as text). */
  readonly run: string;

  private constructor(db: SqlRunner, scope: ClaimScope, run: string, leaseMs: number) {
    this.#scope = scope;
    this.#db = warehouseDb(db, scope.schema);
    this.#leaseMs = leaseMs;
    this.run = run;
    this.#renewal = setInterval(
      () => {
        this.#renewing = this.renew().catch(() => undefined); // the next renewal tries again
      },
      Math.max(1, Math.floor(leaseMs / 3)),
    );
    this.#renewal.unref();
  }

  /** Numbers a run whose claims are written through `db` (any pool: no session of its own is kept). */
  static open(db: SqlRunner, scope: ClaimScope, options: ClaimRunOptions = {}): Promise<ClaimRun> {
    const run = randomBytes(8).readBigInt64BE().toString();
    return Promise.resolve(new ClaimRun(db, scope, run, options.leaseMs ?? DEFAULT_CLAIM_LEASE_MS));
  }

  /** The end of a lease taken now. */
  #lease() {
    return sql<Date>`now() + ${`${this.#leaseMs} milliseconds`}::interval`;
  }

  /** Extends the lease of every claim this run still holds (done on a timer while the run is open). */
  async renew(): Promise<void> {
    await this.#db
      .updateTable('push_receipts')
      .set({ claim_expires_at: this.#lease() })
      .where((eb) =>
        eb.and({ company_cnpj: this.#scope.company, kind: this.#scope.kind, claim_run: bigint(this.run) }),
      )
      .where('state', '=', 'claimed')
      .execute();
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
      claim_expires_at: this.#lease(),
      connection: this.#scope.connection,
      source_file: this.#scope.file,
      source_line: line,
    };
    const receipt = this.#receipt(key);
    const update = () => this.#db.updateTable('push_receipts').where((eb) => eb.and(receipt));
    for (;;) {
      // One statement: a new claim, or the takeover of a claim left without an outcome whose
      // lease has passed or whose write had no conclusive answer (then `taken`: read the API first).
      const got = await this.#db
        .insertInto('push_receipts')
        .values({ ...receipt, state: 'claimed', ...ours })
        .onConflict((oc) =>
          oc
            .columns(['company_cnpj', 'kind', 'row_key'])
            .doUpdateSet(ours)
            .where(
              sql<boolean>`push_receipts.state = 'claimed' AND (push_receipts.claim_run IS NULL OR push_receipts.claim_expires_at IS NULL OR push_receipts.claim_expires_at <= now())`,
            ),
        )
        .returning(sql<boolean>`xmax <> 0`.as('taken'))
        .executeTakeFirst();
      if (got) return { kind: 'mine', recheck: got.taken };
      const row = await this.#db
        .selectFrom('push_receipts')
        .where((eb) => eb.and(receipt))
        .select((eb) => [
          'state',
          'created_id',
          'source_file',
          'source_line',
          eb('created_at', '>=', sql<Date>`${options.checkedAt}::timestamptz`).as('since_check'),
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
      // Another run holds it under a live lease: wait for its outcome (or for its lease to pass).
      if (options.signal?.aborted) return { kind: 'stopped' };
      await sleep(options.pollMs ?? 100);
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
        claim_expires_at: null,
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
    await this.#mine(key)
      .set({ claim_run: null, claim_expires_at: null })
      .where('state', '=', 'claimed')
      .execute();
  }

  /** Ends the run: renewals stop and its leases end, so claims it left become another run's to resolve at once. */
  async close(): Promise<void> {
    clearInterval(this.#renewal);
    await this.#renewing;
    await this.#db
      .updateTable('push_receipts')
      .set({ claim_expires_at: sql<Date>`now()` })
      .where((eb) =>
        eb.and({ company_cnpj: this.#scope.company, kind: this.#scope.kind, claim_run: bigint(this.run) }),
      )
      .where('state', '=', 'claimed')
      .execute()
      .catch(() => undefined); // unreachable database: the leases pass on their own
  }
}
