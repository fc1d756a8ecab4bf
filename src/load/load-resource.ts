/**
 * src/load/ — the load engine: one job's read of the API into the warehouse, in one transaction.
 *
 * Every resource runs through it: read the declaration's endpoints for one company (and
 * window) (read-calls.ts), validate each element, derive its rows and stage them with COPY in
 * bounded batches (element-writer.ts), then merge and reconcile (merge-and-record.ts) — in one
 * transaction, so a window is all-or-nothing whatever its size, and memory depends on the
 * batch size, not on the company.
 */
import { errorClass } from '../util/errors.js';
import type pg from 'pg';
import { DIRECTORY, type GroupDeclaration } from '../resources/index.js';
import { walkGroup } from '../plan/group-walk.js';
import { todayIn } from '../util/time.js';
import { mergeStaged, scopeHasRows, type RemovalGuard, type TableStats } from '../warehouse/merge.js';
import { openStaging, stageName, type StagedRow } from '../warehouse/staging.js';
import { columnNames, type LoadScope, type TableSpec } from '../warehouse/table-spec.js';
import { quoteIdent, warehouseDb } from '../warehouse/db.js';
import { eraseMentions, hasStandingErasures } from '../privacy/erasures.js';
import { withTransaction } from '../warehouse/transaction.js';
import { withSpan, type SpanAttributes } from '../telemetry/tracing.js';
import type { CompanyLoad, EngineContext, LoadRequest, LoadResult } from './context.js';
import { ElementWriter } from './element-writer.js';
import { InvalidJobError, SuspiciousAnswerError } from './errors.js';
import { MassRemovals, mergeAndRecord } from './merge-and-record.js';
import { readAll } from './read-calls.js';
import { SEEN_STAGE, SeenCollaborators, knownCollaborators } from './seen-collaborators.js';
import { publishLoadSpan } from './timing.js';

/** True when a removal may be applied on one answer's word: at most half of a window's live rows, and not all of them. */
const modestRemoval: RemovalGuard = ({ live, removing }) => !(removing * 2 > live || removing === live);

/**
 * Runs one load. When the answer would remove a suspicious share of a window's rows, nothing
 * is applied and {@link SuspiciousAnswerError} (retryable) says what was refused; a later
 * attempt, given those as `seenRemovals`, applies a removal only when its own answer (read
 * after the job's back-off) would remove exactly the same.
 */
export async function loadResource(
  ctx: EngineContext,
  req: LoadRequest,
  signal?: AbortSignal,
): Promise<LoadResult> {
  // docs/operations.md "Tracing": the load is a span; its API requests, COPY batches and merges nest under it.
  return withSpan(`load ${req.name}`, 'internal', loadSpanAttributes(req), async (span) => {
    try {
      const result = await loadByKind(ctx, req, signal);
      span?.set(loadResultAttributes(result));
      return result;
    } finally {
      // Outside the load's transaction, whatever its outcome: drift never fails a load.
      await ctx.memory.drift.flush(ctx.pool, ctx.schema, ctx.logger);
    }
  });
}

/** The attributes of a load's span (pure): what it loads, never a row. */
export function loadSpanAttributes(
  req: Pick<LoadRequest, 'connection' | 'name' | 'company' | 'window'>,
): SpanAttributes {
  return {
    'punchline.connection': req.connection,
    'punchline.resource': req.name,
    'punchline.company': req.company,
    'punchline.window.start': req.window?.from,
    'punchline.window.end': req.window?.to,
  };
}

/** The counts of a finished load as span attributes (pure). */
export function loadResultAttributes(result: LoadResult): SpanAttributes {
  const keys = ['received', 'inserted', 'updated', 'deleted'] as const;
  const sum = (k: (typeof keys)[number]) => Object.values(result.tables).reduce((n, t) => n + t[k], 0);
  const rows: SpanAttributes = Object.fromEntries(keys.map((k) => [`punchline.rows.${k}`, sum(k)]));
  return { ...rows, 'punchline.rejected': result.rejected };
}

/** {@link loadResource} without its span: the group walk, or one company's load (by the declaration's read kind). */
async function loadByKind(
  ctx: EngineContext,
  { declaration, company, ...req }: LoadRequest,
  signal: AbortSignal | undefined,
): Promise<LoadResult> {
  if (declaration.read === 'group') return loadWalk(ctx, declaration, signal);
  if (company === undefined) throw new InvalidJobError(`${req.name} needs a company`);
  return loadCompany(ctx, { ...req, declaration, company }, signal);
}

/** The group walk (spec 1.4), read before the transaction; its rows merged like any load's, unreconciled. */
async function loadWalk(
  ctx: EngineContext,
  { walk, tables }: GroupDeclaration,
  signal: AbortSignal | undefined,
): Promise<LoadResult> {
  const opts = ctx.call(undefined, signal);
  const found = await walkGroup(ctx.api, opts, walk);
  // spec 4.1: with include_branches=1 a headquarters token gets every company in one call.
  const records = found.headquarters
    ? await ctx.api
        .request(walk.company, { scope: { includeBranches: true } }, opts)
        .then(({ data }) => (Array.isArray(data) ? data : [data]))
    : [found.own];
  return withTransaction(ctx.pool, async (client) => {
    const names = Object.keys(tables);
    const staging = openStaging(client, Object.values(tables), { stages: names.map(stageName) });
    const staged = staging.tables();
    walk.rows(
      found.group,
      records,
      Object.fromEntries(names.map((name, i) => [name, (row: StagedRow) => staged[i]!.add(row)])),
    );
    await staging.finish();
    const out: Record<string, TableStats> = {};
    for (const t of staged) {
      const s = await mergeStaged(client, ctx.schema, t, {});
      const sum = (out[t.spec.table] ??= { received: 0, inserted: 0, updated: 0, deleted: 0, unchanged: 0 });
      for (const k of ['received', 'inserted', 'updated', 'deleted', 'unchanged'] as const) sum[k] += s[k];
    }
    return { tables: out, rejected: 0 };
  });
}

/** One company's load, read again once when a direct copy met a key. */
async function loadCompany(
  ctx: EngineContext,
  req: CompanyLoad,
  signal: AbortSignal | undefined,
): Promise<LoadResult> {
  const seen = req.seenRemovals ?? [];
  // The same rows of the same table, not only as many.
  const agrees: RemovalGuard = (removal) =>
    modestRemoval(removal) ||
    seen.some(
      (r) =>
        r.table === removal.table &&
        r.live === removal.live &&
        r.removing === removal.removing &&
        r.digest === removal.digest,
    );
  try {
    try {
      return await loadOnce(ctx, req, agrees, true, signal);
    } catch (err) {
      if (!(err instanceof DirectConflict)) throw err;
      // Another load wrote some of these keys meanwhile, or the answer held a key twice:
      // read the window again and merge it the ordinary way. (The key's values, CPFs among
      // them, are in the error's detail: only the constraint is logged.)
      const { constraint, table } = err.cause as { constraint?: string; table?: string };
      ctx.logger.info(
        { constraint, table },
        'a row copied straight in met an existing key; reading the window again to merge it',
      );
      return await loadOnce(ctx, req, agrees, false, signal);
    }
  } catch (err) {
    if (!(err instanceof MassRemovals)) throw err;
    const refused = err.refused.map((r) => r.removal);
    ctx.logger.warn(
      { refused, previous: seen },
      'answer would remove most of the window; nothing removed, the next attempt reads it again',
    );
    throw new SuspiciousAnswerError(req.name, refused, seen.length > 0 ? seen : undefined);
  }
}

/** A row copied straight into a table met a key already there (SQLSTATE 23505). */
class DirectConflict extends errorClass('DirectConflict', 'direct_conflict') {}

/**
 * Whether a load copies its rows straight into its tables (all or none): when its scope holds
 * no row of its tables yet — a backfill's usual case — there is nothing to reconcile nor merge
 * with, so the rows skip the temporary tables and the `INSERT … ON CONFLICT`. Tables written by
 * two specs, with derived columns, reconciled through the stages or worked on after the merge
 * are always merged.
 */
async function copiesStraightIn(
  client: pg.PoolClient,
  schema: string,
  req: CompanyLoad,
  specs: readonly TableSpec[],
  erasing: boolean,
): Promise<boolean> {
  const { declaration } = req;
  // The stages of a company with erased people are cleaned of them before the merge.
  if (!req.window || declaration.read === 'items' || declaration.afterMerge || erasing) return false;
  const eligible = specs.every(
    (spec) =>
      spec.missing !== undefined &&
      spec.missing.windowRows === undefined &&
      spec.fixed === undefined &&
      specs.filter((s) => s.table === spec.table).length === 1,
  );
  if (!eligible) return false;
  const scope: LoadScope = { company: req.company, ...req.window };
  for (const spec of specs) if (await scopeHasRows(client, schema, spec, scope)) return false;
  return true;
}

async function loadOnce(
  ctx: EngineContext,
  req: CompanyLoad,
  guard: RemovalGuard,
  allowDirect: boolean,
  signal: AbortSignal | undefined,
): Promise<LoadResult> {
  const { declaration } = req;
  const items =
    declaration.items && req.window
      ? await declaration.items.list(
          warehouseDb(ctx.pool, ctx.schema),
          req.company,
          req.window,
          req.force ?? false,
        )
      : undefined;
  const specs = Object.values(declaration.tables);
  // Collaborator blocks seen in period data are added to the directory of people (by every resource but the directory's own).
  const addsSeen = declaration.reads.some((r) => r.people) && declaration.directory === undefined;

  return withTransaction(ctx.pool, async (client) => {
    const staging = openStaging(client, addsSeen ? [...specs, DIRECTORY.seen] : specs, {
      stages: addsSeen ? [...specs.map((s) => `stage_${s.table}`), SEEN_STAGE] : undefined,
      onBatch: (table, _bytes, done) => publishLoadSpan(`copy:${table}`, done),
      mergedOnlyWithRows: addsSeen ? [SEEN_STAGE] : undefined,
    });
    const erasing = await hasStandingErasures(client, ctx.schema, req.company);
    const direct = allowDirect && (await copiesStraightIn(client, ctx.schema, req, specs, erasing));
    if (direct)
      for (const spec of specs)
        staging.table(spec.table).copyInto(`${quoteIdent(ctx.schema)}.${quoteIdent(spec.table)}`);
    const seen = addsSeen
      ? new SeenCollaborators(
          req.company,
          await knownCollaborators(client, ctx.schema, req.company),
          staging.tables().at(-1)!,
          todayIn(req.timezone, ctx.now?.()),
        )
      : undefined;
    const writer = new ElementWriter(req, staging, specs, seen, ctx);
    try {
      const answered = await readAll(ctx, req, writer, items, signal);
      await staging.finish();
      // docs/privacy.md: the people erased in this company are not brought back by other
      // rows either (a manager's name, a CPF in a text): their mentions go before the merge.
      if (erasing) {
        for (const t of staging.tables()) {
          if (t.direct === undefined && t.rows > 0)
            await eraseMentions(
              client,
              ctx.schema,
              req.company,
              `pg_temp.${quoteIdent(t.stage)}`,
              t.spec.table,
              columnNames(t.spec),
            );
        }
      }
      return await mergeAndRecord(
        ctx,
        req,
        client,
        staging,
        writer,
        items ? answered : undefined,
        guard,
        seen,
      );
    } catch (err) {
      if (direct && (err as { code?: string }).code === '23505')
        throw new DirectConflict('unique violation in a direct copy', { cause: err });
      throw err;
    }
  });
}
