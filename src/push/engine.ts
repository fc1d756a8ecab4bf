/**
 * The engine of `punchline push`, one for every write kind (kinds/): after the local checks
 * (prepare.ts) it resolves names into ids, builds each body, drops repeats of an entity within the
 * file, asks the API (and the warehouse) what already exists, and only with `apply` writes the rest.
 *
 * Every row is checked before the first write, so a row that cannot be sent never leaves a half-done
 * file behind it. Each row is claimed before its write and its outcome recorded after (claims.ts), so
 * concurrent runs of a file write it once; a claim left without an outcome is resolved by reading the
 * API again. A write is retried only when it certainly did not reach the server; one without a
 * conclusive answer is `failed`, and a rerun settles it through the check before writing.
 */
import pLimit from 'p-limit';
import { ApiError, isApiError } from '../api/errors.js';
import type { WorkItem } from '../plan/planner.js';
import type { SqlRunner } from '../warehouse/db.js';
import { ClaimRun, databaseNow, type ClaimPool } from './claims.js';
import { RowInvalid, type Candidate, type CheckContext, type WriteKind } from './kind.js';
import { countOutcomes, type OutcomeCounts, type RowResult } from './outcomes.js';
import { isPrepared, type LocalRow, type PreparedRow } from './prepare.js';
import { ReferenceResolver } from './references.js';

/** Progress of the writes of an `--apply` run. */
export interface PushProgress {
  readonly done: number;
  /** Writes to make. */
  readonly total: number;
  readonly created: number;
  /** Rows refused or failed so far. */
  readonly notDone: number;
  /** Milliseconds since the writes began. */
  readonly elapsedMs: number;
}

/** What the engine works with: the check's context (without its call options) and more. */
export interface PushDeps extends Omit<CheckContext, 'db' | 'call'> {
  /** Warehouse pool (lookups, collaborators, receipts, and a session for the run's claims). */
  readonly db: SqlRunner & ClaimPool;
  /** Connection name (receipts). */
  readonly connection: string;
  /** Stops the run: writes not yet sent are reported `failed` (interrupted). */
  readonly signal?: AbortSignal;
  readonly onProgress?: (p: PushProgress) => void;
  /** Told of each row decided by a write (tests). */
  readonly onWritten?: (row: RowResult) => void;
}

/** Options of one run. */
export interface PushRunOptions {
  /** Input file, as given (receipts, messages). */
  readonly file: string;
  /** Write; without it the run is a plan. */
  readonly apply: boolean;
  /** Writes in flight at once (the request budget still holds across processes). */
  readonly concurrency: number;
}

/** The result of a run. */
export interface PushResult {
  readonly kind: string;
  readonly file: string;
  /** True when the run wrote (`--apply`). */
  readonly applied: boolean;
  /** One result per input row, in file order. */
  readonly rows: RowResult[];
  readonly counts: OutcomeCounts;
  /** Sync work that shows what was created (deduplicated). */
  readonly touched: WorkItem[];
  /** True when the signal stopped the writes. */
  readonly interrupted: boolean;
}

/** A row on its way to the API. */
interface Pending {
  readonly line: number;
  readonly key: string;
  /** The entity as the report names it. */
  readonly label: string;
  /** The body as the row asks for it (checked again when an earlier run's claim must be resolved). */
  readonly asked: unknown;
  body: unknown;
  note?: string;
}

/** How a failed write is reported. */
export interface WriteError {
  readonly outcome: 'invalid' | 'refused' | 'failed';
  /** spec §7 code, or punchline's. */
  readonly code: string;
  readonly message: string;
  /** The write may have taken effect (its claim is left for the API to settle). */
  readonly uncertain: boolean;
  /** Ends the run (a rejected token). */
  readonly stop?: boolean;
}

/** How a failed write is reported; see {@link WriteError}. */
export function writeErrorResult(err: unknown, signal?: AbortSignal): WriteError {
  const rerun =
    'it may have taken effect: run the same file again, the check before writing will skip it if it did';
  if (err instanceof RowInvalid)
    return { outcome: 'invalid', code: err.code, message: err.message, uncertain: false };
  if (signal?.aborted) {
    return {
      outcome: 'failed',
      code: 'interrupted',
      message: `the push was interrupted while this write was in flight; ${rerun}`,
      uncertain: true,
    };
  }
  if (isApiError(err, 'invalid_service_token'))
    return { outcome: 'refused', code: err.code, message: err.message, uncertain: false, stop: true };
  if (isApiError(err, 'response_invalid', 'element_too_large', 'element_too_deep', 'response_too_large')) {
    return {
      outcome: 'failed',
      code: err.code,
      message: `the API answered with a body that breaks the spec (${err.message}); ${rerun}`,
      uncertain: true,
    };
  }
  if (isApiError(err, 'network') && !err.mayHaveReachedServer) {
    return {
      outcome: 'failed',
      code: err.code,
      message: `${err.message}: the write did not reach the API`,
      uncertain: false,
    };
  }
  if (err instanceof ApiError && !err.retryable)
    return { outcome: 'refused', code: err.code, message: err.message, uncertain: false };
  if (err instanceof ApiError)
    return { outcome: 'failed', code: err.code, message: `${err.message}; ${rerun}`, uncertain: true };
  return {
    outcome: 'failed',
    code: 'error',
    message: `${(err as Error).message ?? String(err)}; ${rerun}`,
    uncertain: true,
  };
}

/** Deduplicates work items by resource and window. */
function uniqueItems(items: readonly WorkItem[]): WorkItem[] {
  const key = (i: WorkItem) => `${i.resource}|${i.window?.from ?? ''}|${i.window?.to ?? ''}`;
  return [...new Map(items.map((i) => [key(i), i] as const)).values()];
}

/** Resolves names, builds the body and key of each prepared row; invalid rows get their result. */
async function buildBodies(
  kind: WriteKind<unknown>,
  rows: readonly LocalRow[],
  resolver: ReferenceResolver,
  results: Map<number, RowResult>,
): Promise<Map<number, Pending>> {
  const pending = new Map<number, Pending>();
  for (const [index, row] of rows.entries()) {
    if (!isPrepared(row)) {
      results.set(index, row);
      continue;
    }
    try {
      const values = await resolveNames(row, resolver);
      const body = kind.body(values);
      pending.set(index, {
        line: row.line,
        key: kind.key(body),
        label: kind.label?.(body) ?? kind.key(body),
        asked: body,
        body,
      });
    } catch (err) {
      if (!(err instanceof RowInvalid)) throw err;
      results.set(index, { line: row.line, outcome: 'invalid', code: 'invalid_row', message: err.message });
    }
  }
  return pending;
}

async function resolveNames(row: PreparedRow, resolver: ReferenceResolver): Promise<Record<string, unknown>> {
  const values = { ...row.values };
  const problems: string[] = [];
  for (const { ref, name } of row.names) {
    try {
      values[ref.idField] = await resolver.resolve(ref.table, ref.nameColumn, name);
    } catch (err) {
      if (!(err instanceof RowInvalid)) throw err;
      problems.push(err.message);
    }
  }
  if (problems.length > 0) throw new RowInvalid(problems.join('; '));
  return values;
}

/** Runs the checks and, with `apply`, the writes; see the file comment. */
export async function runPush(
  deps: PushDeps,
  kind: WriteKind<unknown>,
  rows: readonly LocalRow[],
  options: PushRunOptions,
): Promise<PushResult> {
  const ctx: CheckContext = { ...deps, call: deps.signal ? { signal: deps.signal } : {} };
  const results = new Map<number, RowResult>();
  const pending = await buildBodies(kind, rows, new ReferenceResolver(ctx), results);

  // The same entity twice in one file: the first row speaks for it.
  const firstLine = new Map<string, number>();
  for (const [index, p] of pending) {
    const first = firstLine.get(p.key);
    if (first === undefined) {
      firstLine.set(p.key, p.line);
      continue;
    }
    results.set(index, {
      line: p.line,
      outcome: 'skipped',
      key: p.label,
      code: 'duplicate_in_file',
      message: `the same entity as line ${first}`,
    });
    pending.delete(index);
  }

  // Claims made by other runs after this moment were made after this check looked.
  const checkedAt = options.apply ? await databaseNow(deps.db) : '';
  const candidates: Candidate<unknown>[] = [...pending].map(([index, p]) => ({
    index,
    body: p.body,
    key: p.key,
  }));
  const existing = candidates.length > 0 ? await kind.check(ctx, candidates) : new Map();
  for (const [index, e] of existing) {
    const p = pending.get(index)!;
    if (e.exists) {
      results.set(index, skipped(p, e.note, e.id));
      pending.delete(index);
    } else {
      p.body = e.body;
      p.note = e.note;
    }
  }

  if (!options.apply) {
    for (const [index, p] of pending) {
      results.set(index, {
        line: p.line,
        outcome: 'would_create',
        key: p.label,
        ...(p.note ? { message: p.note } : {}),
      });
    }
  }
  const touched: WorkItem[] = [];
  const interrupted =
    options.apply && (await writeAll(deps, ctx, kind, options, checkedAt, pending, results, touched));

  const ordered = [...rows.keys()].map((i) => results.get(i)!);
  return {
    kind: kind.name,
    file: options.file,
    applied: options.apply,
    rows: ordered,
    counts: countOutcomes(ordered),
    touched: uniqueItems(touched),
    interrupted,
  };
}

/** Sends every pending write, each under its claim; returns true when the run was interrupted. */
async function writeAll(
  deps: PushDeps,
  ctx: CheckContext,
  kind: WriteKind<unknown>,
  options: PushRunOptions,
  checkedAt: string,
  pending: Map<number, Pending>,
  results: Map<number, RowResult>,
  touched: WorkItem[],
): Promise<boolean> {
  const started = Date.now();
  const total = pending.size;
  let done = 0;
  let created = 0;
  let stopped: string | undefined;
  const limit = pLimit(Math.max(1, options.concurrency));
  const report = () =>
    deps.onProgress?.({ done, total, created, notDone: done - created, elapsedMs: Date.now() - started });
  const claims = await ClaimRun.open(deps.db, {
    schema: deps.schema,
    company: deps.company,
    kind: kind.name,
    connection: deps.connection,
    file: options.file,
  });
  const notSent = (p: Pending): RowResult => {
    const why = stopped ?? 'the push was interrupted before this write';
    return {
      line: p.line,
      outcome: 'failed',
      key: p.label,
      code: 'not_sent',
      message: `${why}; nothing was sent: run the same file again`,
    };
  };
  const at = { company: deps.company, connection: deps.connection };
  const recorded = (body: unknown) => kind.recorded?.(deps.db, deps.schema, at, body);

  /**
   * Writes one row this run has claimed and records the outcome on the claim. With `recheck` an
   * earlier run may have written it unrecorded: the kind's check reads the API first, and only what is
   * still missing is written.
   */
  const writeClaimed = async (p: Pending, recheck: boolean): Promise<RowResult> => {
    const base = { line: p.line, key: p.label };
    let checking = recheck;
    try {
      if (recheck) {
        const found = (await kind.check(ctx, [{ index: 0, body: p.asked, key: p.key }])).get(0);
        if (found?.exists) {
          await claims.created(p.key, p.line, found.id);
          await recorded(p.asked);
          return skipped(
            p,
            `${found.note} (an earlier push that was stopped or got no answer had sent it)`,
            found.id,
          );
        }
        p.body = found ? found.body : p.asked;
        p.note = found?.note;
        checking = false;
      }
      if (deps.signal?.aborted) {
        await claims.release(p.key).catch(() => undefined);
        const message =
          'the push was interrupted before this write; nothing was sent: run the same file again';
        return { ...base, outcome: 'failed', code: 'not_sent', message };
      }
      const { id } = await kind.write(deps.api, p.body, ctx.call);
      const result: RowResult = {
        ...base,
        outcome: 'created',
        ...(id ? { id } : {}),
        ...(p.note ? { message: p.note } : {}),
      };
      try {
        await claims.created(p.key, p.line, id);
        await recorded(p.body);
        return result;
      } catch (err) {
        // The claim stays without an outcome: the next run reads the API before writing this row.
        return {
          ...result,
          message: `${p.note ? `${p.note}; ` : ''}created, but its receipt could not be recorded: ${(err as Error).message}`,
        };
      }
    } catch (err) {
      const e = writeErrorResult(err, deps.signal);
      if (e.stop) stopped = `the API rejected the token (${e.code})`;
      // A claim that cannot be settled here stays as it is: the next run reads the API for it.
      await (e.uncertain || checking ? claims.unresolved(p.key) : claims.release(p.key)).catch(
        () => undefined,
      );
      const message = checking
        ? `an earlier push left this row unsettled and the API could not be read to settle it: ${e.message}`
        : e.message;
      return { ...base, outcome: checking ? 'failed' : e.outcome, code: e.code, message };
    }
  };

  report();
  try {
    await Promise.all(
      [...pending].map(([index, p]) =>
        limit(async () => {
          if (deps.signal?.aborted || stopped) {
            results.set(index, notSent(p));
            return;
          }
          const claim = await claims.claim(p.key, p.line, { checkedAt, ...ctx.call });
          let result: RowResult;
          if (claim.kind === 'stopped') {
            result = notSent(p);
          } else if (claim.kind === 'created') {
            const where = `${claim.file === options.file ? 'line' : `${claim.file} line`} ${claim.line}`;
            result = skipped(p, `created meanwhile by another push run (${where})`, claim.id);
          } else {
            result = await writeClaimed(p, claim.recheck);
            if (result.outcome === 'created') touched.push(...kind.touches(p.body));
          }
          results.set(index, result);
          if (result.outcome === 'created') created += 1;
          done += 1;
          deps.onWritten?.(result);
          report();
        }),
      ),
    );
  } finally {
    await claims.close();
  }
  return deps.signal?.aborted === true;
}

/** A row skipped because its entity exists (`id` when a read shows it). */
function skipped(p: Pending, message: string, id: string | undefined): RowResult {
  return { line: p.line, outcome: 'skipped', key: p.label, code: 'exists', message, ...(id ? { id } : {}) };
}
